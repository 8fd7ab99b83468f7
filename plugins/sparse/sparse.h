// torchsparse-like operators: declarations shared by the plugin's files.
//
// Matrices travel as plain tensors: COO (row, col, value?), CSR (rowptr,
// col, value?) and CSC (colptr, row, value?), with int64 indices and a
// value whose first dimension is the number of non-zeros. Every operator
// checks its input with TORCH_CHECK and names itself, the argument, what it
// expected and what it found, so a host sees a status, never a crash.
#ifndef TSBRIDGE_PLUGINS_SPARSE_SPARSE_H_
#define TSBRIDGE_PLUGINS_SPARSE_SPARSE_H_

#include <cstdint>
#include <string>
#include <tuple>

#include <ATen/ATen.h>
#include <c10/util/Optional.h>

namespace torchsparse {

using at::Tensor;
using OptTensor = c10::optional<Tensor>;
using Triple = std::tuple<Tensor, Tensor, OptTensor>;

// ---- input checks (checks.cc): "torchsparse::<op>(): argument '<arg>' ..."
// A 1-D int64 index tensor.
void CheckIndex(const char* op, const char* arg, const Tensor& t);
// Every entry in [0, bound).
void CheckRange(const char* op, const char* arg, const Tensor& index, int64_t bound);
// Entries in ascending order.
void CheckSorted(const char* op, const char* arg, const Tensor& index);
// A compressed pointer for `rows` rows over `nnz` entries: rows + 1 entries,
// ptr[0] == 0, non-decreasing, ptr[rows] == nnz.
void CheckPtr(const char* op, const char* arg, const Tensor& ptr, int64_t nnz);
// A value whose first dimension is nnz (or none).
void CheckValue(const char* op, const OptTensor& value, int64_t nnz);
void CheckSize(const char* op, const char* arg, int64_t size);
// "sum", "mean", "max" or "min".
void CheckReduce(const char* op, const std::string& reduce);
// A whole COO (row, col, value?) of a num_rows x num_cols matrix, and a
// whole CSR (rowptr, col, value?) with num_cols columns.
void CheckCoo(const char* op, const Tensor& row, const Tensor& col, const OptTensor& value,
              int64_t num_rows, int64_t num_cols);
void CheckCsr(const char* op, const Tensor& rowptr, const Tensor& col, const OptTensor& value,
              int64_t num_cols, const char* ptr_name = "rowptr", const char* idx_name = "col");
// Undifferentiable operators refuse values that require a gradient.
void CheckNoGrad(const char* op, const char* arg, const OptTensor& value);

// ---- conversions (ops_convert.cc)
// row (sorted) -> rowptr with num_rows + 1 entries, and back.
Tensor coo_to_csr(const Tensor& row, int64_t num_rows);
Tensor csr_to_coo(const Tensor& rowptr);
// The permutation that orders CSR entries by (col, row): CSR -> CSC.
Tensor csr2csc(const Tensor& rowptr, const Tensor& col, int64_t num_cols);
Triple csr_to_csc(const Tensor& rowptr, const Tensor& col, const OptTensor& value,
                  int64_t num_cols);
Triple csc_to_csr(const Tensor& colptr, const Tensor& row, const OptTensor& value,
                  int64_t num_rows);
// Sorts by (row, col) and merges duplicates with `reduce`.
Triple coalesce(const Tensor& row, const Tensor& col, const OptTensor& value,
                int64_t num_rows, int64_t num_cols, const std::string& reduce);
bool is_coalesced(const Tensor& row, const Tensor& col, int64_t num_cols);
Tensor to_dense(const Tensor& row, const Tensor& col, const OptTensor& value,
                int64_t num_rows, int64_t num_cols);

// ---- differentiable operators (autograd.cc), kernels in ops_spmm.cc
// COO of the transpose, sorted by (col, row); d/d value is a permutation.
Triple transpose(const Tensor& row, const Tensor& col, const OptTensor& value,
                 int64_t num_rows, int64_t num_cols);
// out[i] = reduce over the entries e of row i of value[e] * mat[col[e]];
// arg_out holds, for max and min, the entry chosen (nnz for an empty row).
std::tuple<Tensor, OptTensor> spmm(const Tensor& rowptr, const Tensor& col,
                                   const OptTensor& value, const Tensor& mat,
                                   const std::string& reduce);
// The forward kernel, no autograd: also used by the backward passes.
std::tuple<Tensor, OptTensor> spmm_kernel(const Tensor& rowptr, const Tensor& col,
                                          const OptTensor& value, const Tensor& mat,
                                          const std::string& reduce);
void CheckSpmm(const char* op, const Tensor& rowptr, const Tensor& col,
               const OptTensor& value, const Tensor& mat, const std::string& reduce);

// ---- sparse x sparse (ops_spspmm.cc): CSR of A (m x k) times B (k x n).
std::tuple<Tensor, Tensor, Tensor> spspmm(const Tensor& rowptr_a, const Tensor& col_a,
                                          const OptTensor& value_a, const Tensor& rowptr_b,
                                          const Tensor& col_b, const OptTensor& value_b,
                                          int64_t num_cols);

// ---- sampling (ops_sample.cc)
// col renumbered: idx's nodes first (0..len-1), then new ones in order of
// appearance; returns (renumbered col, the node of each new number).
std::tuple<Tensor, Tensor> relabel(const Tensor& col, const Tensor& idx);
// Up to num_neighbors neighbours of each node in idx (all when < 0), from
// CSR: (rowptr over idx, their columns, their edge ids). `seed` makes the
// draw deterministic; without it the default CPU generator seeds it.
std::tuple<Tensor, Tensor, Tensor> sample_adj(const Tensor& rowptr, const Tensor& col,
                                              const Tensor& idx, int64_t num_neighbors,
                                              bool replace, c10::optional<int64_t> seed);

}  // namespace torchsparse

#endif  // TSBRIDGE_PLUGINS_SPARSE_SPARSE_H_
