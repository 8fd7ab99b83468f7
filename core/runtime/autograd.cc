// Autograd for hosts: requires_grad, .grad, detach, backward and the grad
// mode, on LibTorch's engine. LibTorch reports misuse with c10::Errors
// whose text names no argument; the checks here come first so that a host
// reads which output, what was expected and what was found.
#include "core/runtime/autograd.h"

#include <ATen/core/grad_mode.h>
#include <torch/csrc/autograd/autograd.h>
#include <torch/csrc/autograd/function.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/call/call.h"
#include "tsbridge/plugin/kind_codec.hpp"

namespace tsb::runtime {
namespace {

std::string Shape(const at::Tensor& t) {
  return absl::StrCat("[", absl::StrJoin(t.sizes(), ", "), "]");
}

// "a Float tensor of shape [2, 3]", for errors.
std::string Describe(const at::Tensor& t) {
  return absl::StrCat("a ", c10::toString(t.scalar_type()), " tensor of shape ", Shape(t));
}

absl::Status CheckOutput(const at::Tensor& out, const at::Tensor* grad, size_t i) {
  const std::string where = absl::StrCat("outputs[", i, "]");
  if (!out.defined()) {
    return WithPath(absl::InvalidArgumentError("expected a tensor, got an undefined one"), where);
  }
  if (!out.requires_grad()) {
    return WithPath(
        absl::InvalidArgumentError(absl::StrCat(
            "expected a tensor that requires grad, got ", Describe(out),
            " that does not (set requires_grad on an input or a parameter first, and do not "
            "compute it with grad mode off)")),
        where);
  }
  const bool one_element = out.numel() == 1;
  if (grad == nullptr || !grad->defined()) {
    if (!one_element) {
      return WithPath(absl::InvalidArgumentError(absl::StrCat(
                          "an output of shape ", Shape(out),
                          " needs a gradient in grad_outputs; only a one-element output may "
                          "go without one (it gets ones)")),
                      absl::StrCat("grad_outputs[", i, "]"));
    }
    return absl::OkStatus();
  }
  if (grad->sizes() != out.sizes()) {
    return WithPath(absl::InvalidArgumentError(absl::StrCat(
                        "expected a gradient of shape ", Shape(out), ", got ", Describe(*grad))),
                    absl::StrCat("grad_outputs[", i, "]"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status SetRequiresGrad(const at::Tensor& tensor, bool requires_grad) {
  if (!tensor.defined()) return absl::InvalidArgumentError("the tensor is undefined");
  if (requires_grad && !(at::isFloatingType(tensor.scalar_type()) ||
                         at::isComplexType(tensor.scalar_type()))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected a floating point or complex tensor to require grad, got ",
        Describe(tensor)));
  }
  if (!tensor.is_leaf()) {
    if (requires_grad) return absl::OkStatus();  // computed in a graph: it already does
    return absl::InvalidArgumentError(absl::StrCat(
        "expected a leaf tensor, got one computed by ", tensor.grad_fn()->name(),
        ": only leaves can stop requiring grad (detach it instead)"));
  }
  at::Tensor shared = tensor;  // the same TensorImpl
  shared.set_requires_grad(requires_grad);
  return absl::OkStatus();
}

at::Tensor GradOf(const at::Tensor& tensor) { return tensor.grad(); }

void ZeroGrad(const at::Tensor& tensor) {
  at::Tensor grad = tensor.grad();
  if (!grad.defined()) return;
  at::NoGradGuard no_grad;
  grad.detach().zero_();
}

at::Tensor Detach(const at::Tensor& tensor) { return tensor.detach(); }

absl::Status Backward(const std::vector<at::Tensor>& outputs,
                      const std::vector<at::Tensor>& grad_outputs, bool retain_graph) {
  if (outputs.empty()) return absl::InvalidArgumentError("expected at least one output, got 0");
  for (size_t i = 0; i < outputs.size(); ++i) {
    TSB_RETURN_IF_ERROR(
        CheckOutput(outputs[i], grad_outputs.empty() ? nullptr : &grad_outputs[i], i));
  }
  // A second backward through a freed graph is a c10::Error; an error raised
  // in a custom backward may be any exception: both are TorchErrors.
  return WithCall(CatchAll([&] { torch::autograd::backward(outputs, grad_outputs, retain_graph); },
                           /*from_torch=*/true),
                  "backward");
}

bool SetGradEnabled(bool enabled) {
  const bool previous = at::GradMode::is_enabled();
  at::GradMode::set_enabled(enabled);
  return previous;
}

bool GradEnabled() { return at::GradMode::is_enabled(); }

}  // namespace tsb::runtime
