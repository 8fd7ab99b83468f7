// Sparse x sparse: Gustavson's row-by-row product of two CSR matrices, in
// two passes over the rows (count the columns of each output row, then fill
// them in ascending order), each pass split over at::parallel_for.
#include <algorithm>
#include <vector>

#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>

#include "plugins/sparse/sparse.h"

namespace torchsparse {
namespace {

template <typename T>
struct Csr {
  const int64_t* ptr;
  const int64_t* col;
  const T* value;  // nullptr: every value is 1
  T at(int64_t e) const { return value != nullptr ? value[e] : T(1); }
};

template <typename T>
const T* DataOrNull(const OptTensor& t) {
  return t.has_value() ? t->data_ptr<T>() : nullptr;
}

// Calls visit(k) for each distinct column k of row i of A * B, once, in the
// order first met; `mark` (n entries, all -1) is restored on return.
template <typename T, typename Visit>
void ForEachColumn(const Csr<T>& a, const Csr<T>& b, int64_t i, std::vector<int64_t>& mark,
                   std::vector<int64_t>& seen, Visit visit) {
  seen.clear();
  for (int64_t e = a.ptr[i]; e < a.ptr[i + 1]; ++e) {
    const int64_t j = a.col[e];
    for (int64_t f = b.ptr[j]; f < b.ptr[j + 1]; ++f) {
      visit(a.at(e) * b.at(f), b.col[f], mark[b.col[f]] != i);
      if (mark[b.col[f]] != i) {
        mark[b.col[f]] = i;
        seen.push_back(b.col[f]);
      }
    }
  }
  for (int64_t k : seen) mark[k] = -1;
}

template <typename T>
std::tuple<Tensor, Tensor, Tensor> Product(const Csr<T>& a, const Csr<T>& b, int64_t rows,
                                           int64_t n, const at::TensorOptions& index_options,
                                           const at::TensorOptions& value_options) {
  Tensor rowptr = at::zeros({rows + 1}, index_options);
  int64_t* ptr = rowptr.data_ptr<int64_t>();
  at::parallel_for(0, rows, 64, [&](int64_t first, int64_t last) {
    std::vector<int64_t> mark(n, -1), seen;
    for (int64_t i = first; i < last; ++i) {
      int64_t count = 0;
      ForEachColumn(a, b, i, mark, seen, [&](T, int64_t, bool fresh) { count += fresh; });
      ptr[i + 1] = count;
    }
  });
  for (int64_t i = 0; i < rows; ++i) ptr[i + 1] += ptr[i];

  Tensor col = at::empty({ptr[rows]}, index_options);
  Tensor value = at::empty({ptr[rows]}, value_options);
  int64_t* c = col.data_ptr<int64_t>();
  T* v = value.data_ptr<T>();
  at::parallel_for(0, rows, 64, [&](int64_t first, int64_t last) {
    std::vector<int64_t> mark(n, -1), seen;
    std::vector<T> sum(n, T(0));
    for (int64_t i = first; i < last; ++i) {
      ForEachColumn(a, b, i, mark, seen, [&](T x, int64_t k, bool) { sum[k] += x; });
      std::sort(seen.begin(), seen.end());
      int64_t out = ptr[i];
      for (int64_t k : seen) {
        c[out] = k;
        v[out++] = sum[k];
        sum[k] = T(0);
      }
    }
  });
  return {rowptr, col, value};
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> spspmm(const Tensor& rowptr_a, const Tensor& col_a,
                                          const OptTensor& value_a, const Tensor& rowptr_b,
                                          const Tensor& col_b, const OptTensor& value_b,
                                          int64_t num_cols) {
  CheckIndex("spspmm", "rowptr_b", rowptr_b);
  TORCH_CHECK(rowptr_b.numel() >= 1, "torchsparse::spspmm(): argument 'rowptr_b': expected "
              "at least one entry, got an empty tensor");
  CheckCsr("spspmm", rowptr_a, col_a, value_a, rowptr_b.numel() - 1, "rowptr_a", "col_a");
  CheckCsr("spspmm", rowptr_b, col_b, value_b, num_cols, "rowptr_b", "col_b");
  CheckNoGrad("spspmm", "value_a", value_a);
  CheckNoGrad("spspmm", "value_b", value_b);
  const OptTensor& some = value_a.has_value() ? value_a : value_b;
  const at::ScalarType dtype = some.has_value() ? some->scalar_type() : at::kFloat;
  for (const OptTensor* v : {&value_a, &value_b}) {
    TORCH_CHECK(!v->has_value() || ((*v)->dim() == 1 && (*v)->scalar_type() == dtype),
                "torchsparse::spspmm(): argument 'value_", v == &value_a ? "a" : "b",
                "': expected a 1-D ", dtype, " tensor (both values share one dtype), got a ",
                (*v)->dim(), "-D ", (*v)->scalar_type(), " tensor");
  }
  TORCH_CHECK(at::isFloatingType(dtype), "torchsparse::spspmm(): expected floating-point "
              "values, got ", dtype);
  const Tensor pa = rowptr_a.contiguous(), ca = col_a.contiguous();
  const Tensor pb = rowptr_b.contiguous(), cb = col_b.contiguous();
  const OptTensor va = value_a.has_value() ? OptTensor(value_a->contiguous()) : c10::nullopt;
  const OptTensor vb = value_b.has_value() ? OptTensor(value_b->contiguous()) : c10::nullopt;
  std::tuple<Tensor, Tensor, Tensor> out;
  AT_DISPATCH_FLOATING_TYPES(dtype, "torchsparse::spspmm", [&] {
    Csr<scalar_t> a{pa.data_ptr<int64_t>(), ca.data_ptr<int64_t>(), DataOrNull<scalar_t>(va)};
    Csr<scalar_t> b{pb.data_ptr<int64_t>(), cb.data_ptr<int64_t>(), DataOrNull<scalar_t>(vb)};
    out = Product(a, b, pa.numel() - 1, num_cols, pa.options(),
                  at::TensorOptions().dtype(dtype));
  });
  return out;
}

}  // namespace torchsparse
