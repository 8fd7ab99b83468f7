// Input checks: each message names the operator and the argument, says
// what was expected and what was found, and where (the first bad index).
#include <c10/core/GradMode.h>

#include "plugins/sparse/sparse.h"

namespace torchsparse {
namespace {

std::string Describe(const Tensor& t) {
  return std::to_string(t.dim()) + "-D " + std::string(c10::toString(t.scalar_type())) +
         " tensor";
}

// The first i with pred(data[i - 1], data[i]) false, or -1 (one pass).
template <typename Pred>
int64_t FirstBreak(const int64_t* data, int64_t n, Pred pred) {
  for (int64_t i = 1; i < n; ++i) {
    if (!pred(data[i - 1], data[i])) return i;
  }
  return -1;
}

}  // namespace

void CheckIndex(const char* op, const char* arg, const Tensor& t) {
  TORCH_CHECK(t.defined(), "torchsparse::", op, "(): argument '", arg,
              "': expected a 1-D int64 tensor, got an undefined tensor");
  TORCH_CHECK(t.dim() == 1 && t.scalar_type() == at::kLong, "torchsparse::", op,
              "(): argument '", arg, "': expected a 1-D int64 tensor, got a ", Describe(t));
  TORCH_CHECK(t.device().is_cpu(), "torchsparse::", op, "(): argument '", arg,
              "': expected a CPU tensor, got one on ", t.device());
}

void CheckRange(const char* op, const char* arg, const Tensor& index, int64_t bound) {
  const Tensor c = index.contiguous();
  const int64_t* data = c.data_ptr<int64_t>();
  for (int64_t i = 0, n = c.numel(); i < n; ++i) {
    TORCH_CHECK(data[i] >= 0 && data[i] < bound, "torchsparse::", op, "(): argument '", arg,
                "': expected entries in [0, ", bound, "), got ", data[i], " at [", i, "]");
  }
}

void CheckSorted(const char* op, const char* arg, const Tensor& index) {
  const Tensor c = index.contiguous();
  const int64_t i = FirstBreak(c.data_ptr<int64_t>(), c.numel(),
                               [](int64_t a, int64_t b) { return a <= b; });
  TORCH_CHECK(i < 0, "torchsparse::", op, "(): argument '", arg,
              "': expected entries sorted in ascending order (call torchsparse::coalesce "
              "first), got ",
              c[i - 1].item<int64_t>(), " at [", i - 1, "] before ", c[i].item<int64_t>(),
              " at [", i, "]");
}

void CheckPtr(const char* op, const char* arg, const Tensor& ptr, int64_t nnz) {
  CheckIndex(op, arg, ptr);
  TORCH_CHECK(ptr.numel() >= 1, "torchsparse::", op, "(): argument '", arg,
              "': expected a compressed pointer with at least one entry, got an empty tensor");
  const Tensor c = ptr.contiguous();
  const int64_t* data = c.data_ptr<int64_t>();
  const int64_t n = c.numel();
  TORCH_CHECK(data[0] == 0, "torchsparse::", op, "(): argument '", arg,
              "': expected 0 at [0], got ", data[0]);
  const int64_t i = FirstBreak(data, n, [](int64_t a, int64_t b) { return a <= b; });
  TORCH_CHECK(i < 0, "torchsparse::", op, "(): argument '", arg,
              "': expected a non-decreasing pointer, got ", data[i < 0 ? 0 : i - 1], " at [",
              i - 1, "] before ", data[i < 0 ? 0 : i], " at [", i, "]");
  TORCH_CHECK(data[n - 1] == nnz, "torchsparse::", op, "(): argument '", arg,
              "': expected its last entry to be the number of non-zeros, ", nnz, ", got ",
              data[n - 1], " at [", n - 1, "]");
}

void CheckValue(const char* op, const OptTensor& value, int64_t nnz) {
  if (!value.has_value()) return;
  TORCH_CHECK(value->defined() && value->dim() >= 1 && value->size(0) == nnz,
              "torchsparse::", op,
              "(): argument 'value': expected one value per non-zero (first dimension ", nnz,
              "), got ", value->defined() ? "shape " + c10::str(value->sizes()) : "undefined");
  TORCH_CHECK(value->device().is_cpu(), "torchsparse::", op,
              "(): argument 'value': expected a CPU tensor, got one on ", value->device());
}

void CheckSize(const char* op, const char* arg, int64_t size) {
  TORCH_CHECK(size >= 0, "torchsparse::", op, "(): argument '", arg,
              "': expected a size >= 0, got ", size);
}

void CheckReduce(const char* op, const std::string& reduce) {
  TORCH_CHECK(reduce == "sum" || reduce == "mean" || reduce == "max" || reduce == "min",
              "torchsparse::", op,
              "(): argument 'reduce': expected \"sum\", \"mean\", \"max\" or \"min\", got \"",
              reduce, "\"");
}

void CheckCoo(const char* op, const Tensor& row, const Tensor& col, const OptTensor& value,
              int64_t num_rows, int64_t num_cols) {
  CheckIndex(op, "row", row);
  CheckIndex(op, "col", col);
  TORCH_CHECK(row.numel() == col.numel(), "torchsparse::", op,
              "(): arguments 'row' and 'col': expected the same length, got ", row.numel(),
              " and ", col.numel());
  CheckSize(op, "num_rows", num_rows);
  CheckSize(op, "num_cols", num_cols);
  CheckRange(op, "row", row, num_rows);
  CheckRange(op, "col", col, num_cols);
  CheckValue(op, value, row.numel());
}

void CheckCsr(const char* op, const Tensor& rowptr, const Tensor& col, const OptTensor& value,
              int64_t num_cols, const char* ptr_name, const char* idx_name) {
  CheckIndex(op, idx_name, col);
  CheckPtr(op, ptr_name, rowptr, col.numel());
  CheckSize(op, "num_cols", num_cols);
  CheckRange(op, idx_name, col, num_cols);
  CheckValue(op, value, col.numel());
}

void CheckNoGrad(const char* op, const char* arg, const OptTensor& value) {
  TORCH_CHECK(!(value.has_value() && value->requires_grad() && c10::GradMode::is_enabled()),
              "torchsparse::", op,
              "(): is not differentiable, but argument '", arg, "' requires grad (detach it, or "
              "call it under torch.no_grad())");
}

}  // namespace torchsparse
