// The autograd section of the host ABI: requires_grad, .grad, detach,
// backward and the thread-local grad mode. The work is in
// core/runtime/autograd.cc.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/abi/arguments.h"
#include "core/abi/guard.h"
#include "core/runtime/autograd.h"
#include "core/object/object.h"
#include "tsbridge/plugin/kind_codec.hpp"

using tsb::abi::CheckArg;
using tsb::abi::Guard;
namespace rt = tsb::runtime;

namespace {

// The tensor of an argument; an error names it: "outputs[1]: expected
// Tensor, got int 3".
absl::StatusOr<at::Tensor> TensorArg(const tsb_any* value, const std::string& name) {
  absl::StatusOr<c10::IValue> iv =
      tsb::abi::ValueArgOfType(value, TSB_TYPE_TENSOR, name.c_str());
  if (!iv.ok()) return tsb::WithPath(iv.status(), name);
  return iv->toTensor();
}

// A tensor as a new reference; an undefined one as None.
absl::Status TensorOut(const at::Tensor& tensor, tsb_any* out) {
  if (!tensor.defined()) {
    *out = tsb_any_none();
    return absl::OkStatus();
  }
  return tsb::ToBoundary(c10::IValue(tensor), out);
}

}  // namespace

extern "C" {

tsb_status* tsb_tensor_set_requires_grad(const tsb_any* tensor, bool requires_grad) {
  return Guard([&]() -> absl::Status {
    TSB_ASSIGN_OR_RETURN(at::Tensor t, TensorArg(tensor, "tensor"));
    return rt::SetRequiresGrad(t, requires_grad);
  });
}

tsb_status* tsb_tensor_get_requires_grad(const tsb_any* tensor, bool* out) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    TSB_ASSIGN_OR_RETURN(at::Tensor t, TensorArg(tensor, "tensor"));
    *out = t.defined() && t.requires_grad();
    return absl::OkStatus();
  });
}

tsb_status* tsb_tensor_get_grad(const tsb_any* tensor, tsb_any* out) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    TSB_ASSIGN_OR_RETURN(at::Tensor t, TensorArg(tensor, "tensor"));
    return TensorOut(t.defined() ? rt::GradOf(t) : at::Tensor(), out);
  });
}

tsb_status* tsb_tensor_zero_grad(const tsb_any* tensor) {
  return Guard([&]() -> absl::Status {
    TSB_ASSIGN_OR_RETURN(at::Tensor t, TensorArg(tensor, "tensor"));
    if (t.defined()) rt::ZeroGrad(t);
    return absl::OkStatus();
  });
}

tsb_status* tsb_tensor_detach(const tsb_any* tensor, tsb_any* out) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    TSB_ASSIGN_OR_RETURN(at::Tensor t, TensorArg(tensor, "tensor"));
    if (!t.defined()) return absl::InvalidArgumentError("the tensor is undefined");
    return TensorOut(rt::Detach(t), out);
  });
}

tsb_status* tsb_autograd_backward(const tsb_any* outputs, size_t n, const tsb_any* grad_outputs,
                                  bool retain_graph) {
  return Guard([&]() -> absl::Status {
    if (n > 0) TSB_RETURN_IF_ERROR(CheckArg(outputs, "outputs"));
    std::vector<at::Tensor> outs, grads;
    for (size_t i = 0; i < n; ++i) {
      TSB_ASSIGN_OR_RETURN(at::Tensor t,
                           TensorArg(&outputs[i], absl::StrCat("outputs[", i, "]")));
      outs.push_back(std::move(t));
    }
    if (grad_outputs != nullptr) {
      for (size_t i = 0; i < n; ++i) {
        if (grad_outputs[i].type_index == TSB_TYPE_NONE) {
          grads.emplace_back();  // ones, for a one-element output
          continue;
        }
        TSB_ASSIGN_OR_RETURN(
            at::Tensor g,
            TensorArg(&grad_outputs[i], absl::StrCat("grad_outputs[", i, "]")));
        grads.push_back(std::move(g));
      }
    }
    return rt::Backward(outs, grads, retain_graph);
  });
}

tsb_status* tsb_grad_mode_set(bool enabled, bool* previous) {
  return Guard([&]() -> absl::Status {
    const bool was = rt::SetGradEnabled(enabled);
    if (previous != nullptr) *previous = was;
    return absl::OkStatus();
  });
}

tsb_status* tsb_grad_mode_get(bool* out) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    *out = rt::GradEnabled();
    return absl::OkStatus();
  });
}

}  // extern "C"
