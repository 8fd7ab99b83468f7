// Gradients for spmm (every reduce, with respect to value and mat) and for
// transpose (with respect to value), as torch::autograd::Functions. The
// operators are registered CompositeImplicitAutograd (library.cc): the
// dispatcher runs them for the Autograd key and the CPU key alike, the
// Function records the backward, and the tracer (a key above Autograd)
// records the operator as one node, so it stays scriptable and traceable.
#include <torch/csrc/autograd/custom_function.h>

#include "plugins/sparse/sparse.h"

namespace torchsparse {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

Tensor OrUndefined(const OptTensor& t) { return t.has_value() ? *t : Tensor(); }

// d out / d value and d out / d mat for sum and mean: out = A g-scaled.
void SumBackward(const Tensor& rowptr, const Tensor& col, const Tensor& value,
                 const Tensor& mat, Tensor grad, bool mean, bool want_value, bool want_mat,
                 Tensor& grad_value, Tensor& grad_mat) {
  const Tensor row = csr_to_coo(rowptr);
  if (mean) {
    Tensor count = (rowptr.slice(0, 1) - rowptr.slice(0, 0, -1)).clamp_min(1);
    grad = grad / count.to(grad.scalar_type()).unsqueeze(1);
  }
  if (want_value) {
    grad_value = (grad.index_select(0, row) * mat.index_select(0, col)).sum(1);
  }
  if (want_mat) {  // A^T grad, with A^T in CSR from A's CSC
    const OptTensor v = value.defined() ? OptTensor(value) : c10::nullopt;
    auto [colptr, row_t, value_t] = csr_to_csc(rowptr, col, v, mat.size(0));
    grad_mat = std::get<0>(spmm_kernel(colptr, row_t, value_t, grad, "sum"));
  }
}

// For max and min each output element came from one entry arg (nnz: none).
void ArgBackward(const Tensor& col, const Tensor& value, const Tensor& mat, const Tensor& arg,
                 const Tensor& grad, bool want_value, bool want_mat, Tensor& grad_value,
                 Tensor& grad_mat) {
  const int64_t nnz = col.numel();
  if (want_value) grad_value = at::zeros({nnz}, grad.options());
  if (want_mat) grad_mat = at::zeros(mat.sizes(), grad.options());
  if (nnz == 0) return;
  const Tensor hit = arg.lt(nnz);
  const Tensor entry = arg.masked_fill(hit.logical_not(), 0);  // a valid index everywhere
  const Tensor entry_col = col.index_select(0, entry.flatten()).view(arg.sizes());
  const Tensor g = grad * hit.to(grad.scalar_type());
  if (want_value) {
    grad_value.index_add_(0, entry.flatten(), (g * mat.gather(0, entry_col)).flatten());
  }
  if (want_mat) {
    Tensor src = value.defined() ? g * value.index_select(0, entry.flatten()).view(arg.sizes())
                                 : g;
    grad_mat.scatter_add_(0, entry_col, src);
  }
}

struct SpmmFunction : torch::autograd::Function<SpmmFunction> {
  static variable_list forward(AutogradContext* ctx, const Tensor& rowptr, const Tensor& col,
                               const OptTensor& value, const Tensor& mat,
                               const std::string& reduce) {
    auto [out, arg] = spmm_kernel(rowptr, col, value, mat, reduce);
    ctx->saved_data["reduce"] = reduce;
    ctx->saved_data["want_value"] = value.has_value() && value->requires_grad();
    ctx->saved_data["want_mat"] = mat.requires_grad();
    ctx->save_for_backward({rowptr, col, OrUndefined(value), mat, OrUndefined(arg)});
    if (!arg.has_value()) return {out};
    ctx->mark_non_differentiable({*arg});
    return {out, *arg};
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const variable_list saved = ctx->get_saved_variables();
    const std::string reduce = ctx->saved_data["reduce"].toStringRef();
    const bool want_value = ctx->saved_data["want_value"].toBool();
    const bool want_mat = ctx->saved_data["want_mat"].toBool();
    const Tensor grad = grads[0].contiguous();
    Tensor grad_value, grad_mat;
    if (reduce == "sum" || reduce == "mean") {
      SumBackward(saved[0], saved[1], saved[2], saved[3], grad, reduce == "mean", want_value,
                  want_mat, grad_value, grad_mat);
    } else {
      ArgBackward(saved[1], saved[2], saved[3], saved[4], grad, want_value, want_mat,
                  grad_value, grad_mat);
    }
    return {Tensor(), Tensor(), grad_value, grad_mat, Tensor()};
  }
};

struct TransposeFunction : torch::autograd::Function<TransposeFunction> {
  static variable_list forward(AutogradContext* ctx, const Tensor& perm, const Tensor& value) {
    ctx->save_for_backward({perm});
    return {value.index_select(0, perm)};
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const Tensor perm = ctx->get_saved_variables()[0];
    return {Tensor(), at::zeros_like(grads[0]).index_copy_(0, perm, grads[0])};
  }
};

}  // namespace

std::tuple<Tensor, OptTensor> spmm(const Tensor& rowptr, const Tensor& col,
                                   const OptTensor& value, const Tensor& mat,
                                   const std::string& reduce) {
  CheckSpmm("spmm", rowptr, col, value, mat, reduce);
  variable_list out = SpmmFunction::apply(rowptr, col, value, mat, reduce);
  if (out.size() == 1) return {out[0], c10::nullopt};
  return {out[0], out[1]};
}

Triple transpose(const Tensor& row, const Tensor& col, const OptTensor& value,
                 int64_t num_rows, int64_t num_cols) {
  CheckCoo("transpose", row, col, value, num_rows, num_cols);
  // Sorted by (col, row): the transpose comes out coalesced-ordered.
  const Tensor perm =
      std::get<1>((col * num_rows + row).sort(/*stable=*/true, /*dim=*/0, false));
  OptTensor value_t;
  if (value.has_value()) value_t = TransposeFunction::apply(perm, *value)[0];
  return {col.index_select(0, perm), row.index_select(0, perm), value_t};
}

}  // namespace torchsparse
