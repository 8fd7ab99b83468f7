// COO <-> CSR <-> CSC, coalesce, to_dense. Written with differentiable ATen
// operations (sort, index_select, index_add, scatter_reduce), so registered
// as CompositeImplicitAutograd they get their gradient with respect to the
// values for free, and tracing records them as one torchsparse:: node.
#include "plugins/sparse/sparse.h"

namespace torchsparse {
namespace {

OptTensor Permuted(const OptTensor& value, const Tensor& perm) {
  if (!value.has_value()) return c10::nullopt;
  return value->index_select(0, perm);
}

// ptr -> the index it compresses (no checks).
Tensor Expand(const Tensor& ptr) {
  const int64_t rows = ptr.numel() - 1;
  Tensor counts = ptr.slice(0, 1) - ptr.slice(0, 0, rows);
  return at::repeat_interleave(at::arange(rows, ptr.options()), counts,
                               /*dim=*/0, /*output_size=*/ptr[rows].item<int64_t>());
}

// index (sorted, in range) -> its compressed pointer with `rows` rows.
Tensor Compress(const Tensor& index, int64_t rows) {
  Tensor ptr = at::zeros({rows + 1}, index.options());
  ptr.slice(0, 1).copy_(at::bincount(index, {}, rows).cumsum(0));
  return ptr;
}

// CSR of A (ptr over the first axis, idx the second) -> CSR of A^T.
Triple Recompress(const char* op, const Tensor& ptr, const Tensor& idx,
                  const OptTensor& value, int64_t other, const char* ptr_name,
                  const char* idx_name) {
  CheckCsr(op, ptr, idx, value, other, ptr_name, idx_name);
  Tensor perm = std::get<1>(idx.sort(/*stable=*/true, /*dim=*/0, /*descending=*/false));
  return {Compress(idx.index_select(0, perm), other), Expand(ptr).index_select(0, perm),
          Permuted(value, perm)};
}

}  // namespace

Tensor coo_to_csr(const Tensor& row, int64_t num_rows) {
  CheckIndex("coo_to_csr", "row", row);
  CheckSize("coo_to_csr", "num_rows", num_rows);
  CheckRange("coo_to_csr", "row", row, num_rows);
  CheckSorted("coo_to_csr", "row", row);
  return Compress(row, num_rows);
}

Tensor csr_to_coo(const Tensor& rowptr) {
  CheckIndex("csr_to_coo", "rowptr", rowptr);
  TORCH_CHECK(rowptr.numel() >= 1,
              "torchsparse::csr_to_coo(): argument 'rowptr': expected at least one entry, got "
              "an empty tensor");
  CheckPtr("csr_to_coo", "rowptr", rowptr, rowptr[-1].item<int64_t>());
  return Expand(rowptr);
}

Tensor csr2csc(const Tensor& rowptr, const Tensor& col, int64_t num_cols) {
  CheckCsr("csr2csc", rowptr, col, c10::nullopt, num_cols);
  return std::get<1>(col.sort(/*stable=*/true, /*dim=*/0, /*descending=*/false));
}

Triple csr_to_csc(const Tensor& rowptr, const Tensor& col, const OptTensor& value,
                  int64_t num_cols) {
  return Recompress("csr_to_csc", rowptr, col, value, num_cols, "rowptr", "col");
}

Triple csc_to_csr(const Tensor& colptr, const Tensor& row, const OptTensor& value,
                  int64_t num_rows) {
  return Recompress("csc_to_csr", colptr, row, value, num_rows, "colptr", "row");
}

Triple coalesce(const Tensor& row, const Tensor& col, const OptTensor& value,
                int64_t num_rows, int64_t num_cols, const std::string& reduce) {
  CheckCoo("coalesce", row, col, value, num_rows, num_cols);
  CheckReduce("coalesce", reduce);
  auto [key, perm] = (row * num_cols + col).sort(/*stable=*/true, 0, false);
  auto [unique, inverse, counts] =
      at::unique_consecutive(key, /*return_inverse=*/true, /*return_counts=*/true);
  Triple out{unique.div(num_cols, "floor"), unique.remainder(num_cols), c10::nullopt};
  if (!value.has_value()) return out;

  Tensor v = value->index_select(0, perm);
  auto shape = v.sizes().vec();
  shape[0] = unique.numel();
  if (reduce == "sum" || reduce == "mean") {
    Tensor sum = at::zeros(shape, v.options()).index_add(0, inverse, v);
    if (reduce == "mean") {
      std::vector<int64_t> count_shape(v.dim(), 1);
      count_shape[0] = unique.numel();
      sum = sum / counts.to(v.scalar_type()).view(count_shape);
    }
    std::get<2>(out) = sum;
  } else {
    // Each output row receives at least one entry: include_self=False is exact.
    std::vector<int64_t> index_shape(v.dim(), 1);
    index_shape[0] = v.size(0);
    Tensor index = inverse.view(index_shape).expand_as(v);
    std::get<2>(out) = at::zeros(shape, v.options())
                           .scatter_reduce(0, index, v, reduce == "max" ? "amax" : "amin",
                                           /*include_self=*/false);
  }
  return out;
}

bool is_coalesced(const Tensor& row, const Tensor& col, int64_t num_cols) {
  Tensor key = row * num_cols + col;
  return key.numel() < 2 || (key.slice(0, 1) > key.slice(0, 0, -1)).all().item<bool>();
}

Tensor to_dense(const Tensor& row, const Tensor& col, const OptTensor& value,
                int64_t num_rows, int64_t num_cols) {
  CheckCoo("to_dense", row, col, value, num_rows, num_cols);
  Tensor v = value.has_value() ? *value : at::ones({row.numel()}, at::kFloat);
  auto shape = v.sizes().vec();
  shape[0] = num_cols;
  shape.insert(shape.begin(), num_rows);
  return at::zeros(shape, v.options()).index_put({row, col}, v, /*accumulate=*/true);
}

}  // namespace torchsparse
