// torchsparse.SparseStorage: checks on construction, caches filled under a
// lock on first use, pickling (torch.save, torch.jit.save), registration.
#include "plugins/sparse/storage.h"

#include <utility>

namespace torchsparse {
namespace {

constexpr const char* kOp = "SparseStorage";

// The cache in `slot`, made by make() on first use.
template <typename Make>
Tensor Lazy(std::recursive_mutex& mutex, OptTensor& slot, Make make) {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  if (!slot.has_value()) slot = make();
  return *slot;
}

bool Has(std::recursive_mutex& mutex, const OptTensor& slot) {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  return slot.has_value();
}

Tensor Counts(const Tensor& ptr) { return ptr.slice(0, 1) - ptr.slice(0, 0, -1); }

// A cache read back from a pickle: an index of the length it must have.
void CheckCache(const char* name, const OptTensor& cache, int64_t length) {
  if (!cache.has_value()) return;
  CheckIndex(kOp, name, *cache);
  TORCH_CHECK(cache->numel() == length, "torchsparse::SparseStorage(): cache '", name,
              "': expected ", length, " entries, got ", cache->numel());
}

}  // namespace

SparseStorage::SparseStorage(OptTensor row, OptTensor rowptr, Tensor col, OptTensor value,
                             std::vector<int64_t> sparse_sizes)
    : sizes_(std::move(sparse_sizes)),
      row_(std::move(row)),
      rowptr_(std::move(rowptr)),
      col_(std::move(col)),
      value_(std::move(value)) {
  TORCH_CHECK(sizes_.size() == 2, "torchsparse::SparseStorage(): argument 'sparse_sizes': "
              "expected [num_rows, num_cols], got ", sizes_.size(), " sizes");
  CheckSize(kOp, "sparse_sizes[0]", sizes_[0]);
  CheckSize(kOp, "sparse_sizes[1]", sizes_[1]);
  TORCH_CHECK(row_.has_value() || rowptr_.has_value(), "torchsparse::SparseStorage(): "
              "expected 'row' (COO) or 'rowptr' (CSR), got neither");
  CheckIndex(kOp, "col", col_);
  CheckRange(kOp, "col", col_, sizes_[1]);
  if (row_.has_value()) {
    CheckCoo(kOp, *row_, col_, c10::nullopt, sizes_[0], sizes_[1]);
    CheckSorted(kOp, "row", *row_);
  }
  if (rowptr_.has_value()) {
    CheckPtr(kOp, "rowptr", *rowptr_, col_.numel());
    TORCH_CHECK(rowptr_->numel() == sizes_[0] + 1, "torchsparse::SparseStorage(): argument "
                "'rowptr': expected num_rows + 1 = ", sizes_[0] + 1, " entries, got ",
                rowptr_->numel());
  }
  if (row_.has_value() && rowptr_.has_value()) {
    TORCH_CHECK(at::equal(*row_, torchsparse::csr_to_coo(*rowptr_)),
                "torchsparse::SparseStorage(): arguments 'row' and 'rowptr' describe "
                "different rows");
  }
  CheckValue(kOp, value_, col_.numel());
}

SparseStorage::Ptr SparseStorage::FromCoo(const Tensor& row, const Tensor& col,
                                          const OptTensor& value,
                                          std::vector<int64_t> sparse_sizes) {
  return c10::make_intrusive<SparseStorage>(row, c10::nullopt, col, value,
                                            std::move(sparse_sizes));
}

SparseStorage::Ptr SparseStorage::FromCsr(const Tensor& rowptr, const Tensor& col,
                                          const OptTensor& value,
                                          std::vector<int64_t> sparse_sizes) {
  return c10::make_intrusive<SparseStorage>(c10::nullopt, rowptr, col, value,
                                            std::move(sparse_sizes));
}

Tensor SparseStorage::row() {
  return Lazy(mutex_, row_, [&] { return torchsparse::csr_to_coo(*rowptr_); });
}
Tensor SparseStorage::rowptr() {
  return Lazy(mutex_, rowptr_, [&] { return torchsparse::coo_to_csr(*row_, sizes_[0]); });
}
Tensor SparseStorage::rowcount() {
  return Lazy(mutex_, rowcount_, [&] { return Counts(rowptr()); });
}
Tensor SparseStorage::csr2csc() {
  return Lazy(mutex_, csr2csc_,
              [&] { return torchsparse::csr2csc(rowptr(), col_, sizes_[1]); });
}
Tensor SparseStorage::csc2csr() {
  return Lazy(mutex_, csc2csr_, [&] {
    const Tensor perm = csr2csc();
    return at::empty_like(perm).index_copy_(0, perm, at::arange(perm.numel(), perm.options()));
  });
}
Tensor SparseStorage::colptr() {
  return Lazy(mutex_, colptr_, [&] {
    return torchsparse::coo_to_csr(col_.index_select(0, csr2csc()), sizes_[1]);
  });
}
Tensor SparseStorage::colcount() {
  return Lazy(mutex_, colcount_, [&] { return Counts(colptr()); });
}

bool SparseStorage::has_row() { return Has(mutex_, row_); }
bool SparseStorage::has_rowptr() { return Has(mutex_, rowptr_); }
bool SparseStorage::has_rowcount() { return Has(mutex_, rowcount_); }
bool SparseStorage::has_colptr() { return Has(mutex_, colptr_); }
bool SparseStorage::has_colcount() { return Has(mutex_, colcount_); }
bool SparseStorage::has_csr2csc() { return Has(mutex_, csr2csc_); }
bool SparseStorage::has_csc2csr() { return Has(mutex_, csc2csr_); }

std::vector<std::string> SparseStorage::cached_keys() {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  std::vector<std::string> keys;
  const std::pair<const char*, const OptTensor*> caches[] = {
      {"rowcount", &rowcount_}, {"colptr", &colptr_},   {"colcount", &colcount_},
      {"csr2csc", &csr2csc_},   {"csc2csr", &csc2csr_}};
  for (const auto& [name, slot] : caches) {
    if (slot->has_value()) keys.emplace_back(name);
  }
  return keys;
}

int64_t SparseStorage::sparse_size(int64_t dim) const {
  TORCH_CHECK(dim >= -2 && dim < 2, "torchsparse::SparseStorage.sparse_size(): argument "
              "'dim': expected -2, -1, 0 or 1, got ", dim);
  return sizes_[dim < 0 ? dim + 2 : dim];
}

SparseStorage::Ptr SparseStorage::set_value(const OptTensor& value) {
  CheckValue("SparseStorage.set_value", value, nnz());
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  auto out = c10::make_intrusive<SparseStorage>(row_, rowptr_, col_, value, sizes_);
  out->rowcount_ = rowcount_;
  out->colptr_ = colptr_;
  out->colcount_ = colcount_;
  out->csr2csc_ = csr2csc_;
  out->csc2csr_ = csc2csr_;
  return out;
}

SparseStorage::Ptr SparseStorage::coalesce(const std::string& reduce) {
  auto [r, c, v] = torchsparse::coalesce(row(), col_, value_, sizes_[0], sizes_[1], reduce);
  return FromCoo(r, c, v, sizes_);
}

bool SparseStorage::is_coalesced() {
  return torchsparse::is_coalesced(row(), col_, sizes_[1]);
}

SparseStorage::Ptr SparseStorage::t() {
  auto [r, c, v] = torchsparse::transpose(row(), col_, value_, sizes_[0], sizes_[1]);
  auto out = FromCoo(r, c, v, {sizes_[1], sizes_[0]});
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  out->rowptr_ = colptr_;  // the rows of A^T are the columns of A
  out->colptr_ = rowptr_;
  out->rowcount_ = colcount_;
  out->colcount_ = rowcount_;
  return out;
}

SparseStorage::Ptr SparseStorage::fill_cache() {
  row();
  rowptr();
  rowcount();
  colptr();
  colcount();
  csc2csr();
  return c10::intrusive_ptr<SparseStorage>::unsafe_reclaim_from_nonowning(this);
}

SparseStorage::Ptr SparseStorage::clear_cache() {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  rowcount_ = colptr_ = colcount_ = csr2csc_ = csc2csr_ = c10::nullopt;
  return c10::intrusive_ptr<SparseStorage>::unsafe_reclaim_from_nonowning(this);
}

Tensor SparseStorage::to_dense() {
  return torchsparse::to_dense(row(), col_, value_, sizes_[0], sizes_[1]);
}

std::tuple<Tensor, OptTensor> SparseStorage::spmm(const Tensor& mat, const std::string& reduce) {
  return torchsparse::spmm(rowptr(), col_, value_, mat, reduce);
}

SparseStorage::State SparseStorage::GetState() {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  return {sizes_,
          {row_, rowptr_, col_, value_, rowcount_, colptr_, colcount_, csr2csc_, csc2csr_}};
}

SparseStorage::Ptr SparseStorage::SetState(State state) {
  auto& [sizes, t] = state;
  TORCH_CHECK(t.size() == 9 && t[2].has_value(), "torchsparse::SparseStorage(): expected a "
              "pickled state of 9 tensors with col, got ", t.size());
  auto out = c10::make_intrusive<SparseStorage>(t[0], t[1], *t[2], t[3], sizes);
  const int64_t lengths[] = {sizes[0], sizes[1] + 1, sizes[1], out->nnz(), out->nnz()};
  const char* names[] = {"rowcount", "colptr", "colcount", "csr2csc", "csc2csr"};
  OptTensor* caches[] = {&out->rowcount_, &out->colptr_, &out->colcount_, &out->csr2csc_,
                         &out->csc2csr_};
  for (int i = 0; i < 5; ++i) {
    CheckCache(names[i], t[4 + i], lengths[i]);
    *caches[i] = t[4 + i];
  }
  return out;
}

void RegisterStorage(torch::Library& m) {
  using S = SparseStorage;
  m.class_<S>("SparseStorage")
      .def(torch::init<OptTensor, OptTensor, Tensor, OptTensor, std::vector<int64_t>>(), "",
           {torch::arg("row"), torch::arg("rowptr"), torch::arg("col"), torch::arg("value"),
            torch::arg("sparse_sizes")})
      .def("row", &S::row).def("rowptr", &S::rowptr).def("col", &S::col)
      .def("value", &S::value).def("rowcount", &S::rowcount).def("colptr", &S::colptr)
      .def("colcount", &S::colcount).def("csr2csc", &S::csr2csc).def("csc2csr", &S::csc2csr)
      .def("has_row", &S::has_row).def("has_rowptr", &S::has_rowptr)
      .def("has_value", &S::has_value).def("has_rowcount", &S::has_rowcount)
      .def("has_colptr", &S::has_colptr).def("has_colcount", &S::has_colcount)
      .def("has_csr2csc", &S::has_csr2csc).def("has_csc2csr", &S::has_csc2csr)
      .def("cached_keys", &S::cached_keys).def("sparse_sizes", &S::sparse_sizes)
      .def("sparse_size", &S::sparse_size).def("nnz", &S::nnz)
      .def("set_value", &S::set_value).def("is_coalesced", &S::is_coalesced)
      .def("coalesce", &S::coalesce, "", {torch::arg("reduce") = "sum"})
      .def("t", &S::t).def("fill_cache", &S::fill_cache).def("clear_cache", &S::clear_cache)
      .def("to_dense", &S::to_dense)
      .def("spmm", &S::spmm, "", {torch::arg("mat"), torch::arg("reduce") = "sum"})
      .def_pickle([](const S::Ptr& self) { return self->GetState(); },
                  [](S::State state) { return S::SetState(std::move(state)); });
}

}  // namespace torchsparse
