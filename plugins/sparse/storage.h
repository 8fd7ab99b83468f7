// torchsparse.SparseStorage: a sparse matrix as pytorch_sparse keeps it.
// col and the sparse sizes always; row or rowptr (the other on demand);
// value optional; rowcount, colptr, colcount, csr2csc and csc2csr are
// caches filled when first asked for (or all at once by fill_cache()).
// Entries are sorted by row. Getters lock, so one storage may be shared
// across threads (TorchScript has no GIL).
#ifndef TSBRIDGE_PLUGINS_SPARSE_STORAGE_H_
#define TSBRIDGE_PLUGINS_SPARSE_STORAGE_H_

#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include <torch/custom_class.h>

#include "plugins/sparse/sparse.h"

namespace torchsparse {

class SparseStorage : public torch::CustomClassHolder {
 public:
  using Ptr = c10::intrusive_ptr<SparseStorage>;
  // The pickled state: the sizes, and row, rowptr, col, value, rowcount,
  // colptr, colcount, csr2csc, csc2csr (a list: LibTorch's inline tuple
  // storage makes gcc warn about longer tuples).
  using State = std::tuple<std::vector<int64_t>, std::vector<OptTensor>>;

  // Checks everything: sizes, index dtypes and ranges, row order, rowptr.
  SparseStorage(OptTensor row, OptTensor rowptr, Tensor col, OptTensor value,
                std::vector<int64_t> sparse_sizes);
  static Ptr FromCoo(const Tensor& row, const Tensor& col, const OptTensor& value,
                     std::vector<int64_t> sparse_sizes);
  static Ptr FromCsr(const Tensor& rowptr, const Tensor& col, const OptTensor& value,
                     std::vector<int64_t> sparse_sizes);

  Tensor row();
  Tensor rowptr();
  Tensor col() const { return col_; }
  OptTensor value() const { return value_; }
  Tensor rowcount();
  Tensor colptr();
  Tensor colcount();
  Tensor csr2csc();
  Tensor csc2csr();

  bool has_row();
  bool has_rowptr();
  bool has_value() const { return value_.has_value(); }
  bool has_rowcount();
  bool has_colptr();
  bool has_colcount();
  bool has_csr2csc();
  bool has_csc2csr();
  // The names of the filled caches (rowcount, colptr, ...), in that order.
  std::vector<std::string> cached_keys();

  std::vector<int64_t> sparse_sizes() const { return sizes_; }
  int64_t sparse_size(int64_t dim) const;
  int64_t nnz() const { return col_.numel(); }

  // New storages; indices and caches shared where they stay valid.
  Ptr set_value(const OptTensor& value);
  Ptr coalesce(const std::string& reduce);
  bool is_coalesced();
  Ptr t();
  // This storage, caches filled or emptied.
  Ptr fill_cache();
  Ptr clear_cache();

  Tensor to_dense();
  std::tuple<Tensor, OptTensor> spmm(const Tensor& mat, const std::string& reduce);

  State GetState();
  static Ptr SetState(State state);

 private:
  std::recursive_mutex mutex_;
  std::vector<int64_t> sizes_;
  OptTensor row_, rowptr_;
  Tensor col_;
  OptTensor value_;
  OptTensor rowcount_, colptr_, colcount_, csr2csc_, csc2csr_;
};

// m.class_<SparseStorage>(...) with its constructor, methods and pickling.
void RegisterStorage(torch::Library& m);

}  // namespace torchsparse

#endif  // TSBRIDGE_PLUGINS_SPARSE_STORAGE_H_
