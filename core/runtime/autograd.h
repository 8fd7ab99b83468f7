// Autograd behind the host ABI's tsb_tensor_*_grad, tsb_tensor_detach,
// tsb_autograd_backward and tsb_grad_mode_* (core/abi/autograd_abi.cc):
// LibTorch's own engine and its thread-local grad mode, with the checks
// that turn its exceptions into errors saying what was expected and where.
#ifndef TSBRIDGE_CORE_RUNTIME_AUTOGRAD_H_
#define TSBRIDGE_CORE_RUNTIME_AUTOGRAD_H_

#include <vector>

#include <ATen/core/Tensor.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace tsb::runtime {

// requires_grad of a leaf. Turning it on needs a floating point or complex
// tensor; turning it off needs a leaf (a computed tensor: detach it).
absl::Status SetRequiresGrad(const at::Tensor& tensor, bool requires_grad);

// The accumulated gradient of a leaf; undefined when none was computed.
at::Tensor GradOf(const at::Tensor& tensor);

// Fills an existing gradient with zeros in place (an optimizer's
// zero_grad(set_to_none=False)); nothing when there is none.
void ZeroGrad(const at::Tensor& tensor);

// A tensor sharing `tensor`'s storage, outside any graph.
at::Tensor Detach(const at::Tensor& tensor);

// torch.autograd.backward(outputs, grad_outputs, retain_graph): gradients
// accumulate into the leaves' .grad. grad_outputs has one entry per output
// (an undefined tensor means "ones", allowed for one-element outputs only)
// or is empty. Errors name the output: "outputs[1]: ...".
absl::Status Backward(const std::vector<at::Tensor>& outputs,
                      const std::vector<at::Tensor>& grad_outputs, bool retain_graph);

// The calling thread's grad mode (at::GradMode): set returns the previous.
bool SetGradEnabled(bool enabled);
bool GradEnabled();

}  // namespace tsb::runtime

#endif  // TSBRIDGE_CORE_RUNTIME_AUTOGRAD_H_
