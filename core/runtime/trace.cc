// Tracing a host function: LibTorch's tracer records every dispatcher
// operator the host runs through tsb_op_call (or through a module call) on
// the traced inputs; the graph becomes the `forward` of a fresh module.
#include <torch/csrc/jit/frontend/tracer.h>

#include "absl/strings/str_cat.h"
#include "core/errors/status.h"
#include "core/runtime/module.h"
#include "core/types/type_parser.h"
#include "core/value/convert.h"
#include "core/runtime/runtime.h"
#include "core/object/object.h"

namespace tsb::runtime {
namespace {

// Thrown through LibTorch's tracer (which abandons the trace and rethrows)
// when the host callback fails; the status it carries is the result.
struct HostFailure {
  absl::Status status;
};

// Calls the host with the traced inputs as boundary values (borrowed by the
// host for the duration of the call) and returns its output on a Stack.
torch::jit::Stack CallHost(tsb_trace_fn fn, void* user_data, torch::jit::Stack inputs) {
  std::vector<tsb_any> boundary(inputs.size());
  ReleaseOnError release(boundary.data(), 0);  // releases them in every case
  for (size_t i = 0; i < inputs.size(); ++i) {
    absl::Status status = ToBoundary(inputs[i], &boundary[i]);
    if (!status.ok()) {
      throw HostFailure{WithPath(status, absl::StrCat("input ", i))};
    }
    release.Grow();
  }
  tsb_any output{};
  absl::Status status = TakeStatus(fn(user_data, boundary.data(), boundary.size(), &output));
  if (!status.ok()) throw HostFailure{WithCall(std::move(status), "traced function")};
  absl::StatusOr<c10::IValue> value = ToIValue(output);
  Release(output);
  if (!value.ok()) throw HostFailure{WithPath(value.status(), "output of the traced function")};
  return {*std::move(value)};
}

}  // namespace

absl::StatusOr<tsb_module*> Trace(tsb_trace_fn fn, void* user_data, const tsb_any* inputs,
                                  size_t num_inputs, bool strict, absl::string_view method_name) {
  // A name TorchScript code could call: an identifier.
  if (!IsIdentifier(method_name)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected a method name (letters, digits and _, not starting with a digit), got \"",
        method_name, "\""));
  }
  torch::jit::Stack stack;
  for (size_t i = 0; i < num_inputs; ++i) {
    absl::StatusOr<c10::IValue> value = ToIValue(inputs[i]);
    if (!value.ok()) return WithPath(value.status(), absl::StrCat("example_inputs[", i, "]"));
    stack.push_back(*std::move(value));
  }
  // The module is `self` during the trace, so the graph takes self first and
  // becomes a method; a fresh compilation unit holds it.
  torch::jit::Module module(c10::QualifiedName("__torch__.tsb.Traced"));
  std::shared_ptr<torch::jit::tracer::TracingState> state;
  try {
    state = torch::jit::tracer::trace(
                std::move(stack),
                [&](torch::jit::Stack traced) { return CallHost(fn, user_data, std::move(traced)); },
                [](const torch::autograd::Variable&) { return std::string(); },
                strict, /*force_outplace=*/false, &module)
                .first;
  } catch (const HostFailure& failure) {
    return failure.status;
  } catch (const c10::Error& e) {
    return TorchError(absl::StrCat("traced function(): ", e.what_without_backtrace()));
  } catch (const std::exception& e) {  // the tracer refused an output (strict)
    return TorchError(absl::StrCat("traced function(): ", e.what()));
  }
  torch::jit::Function* forward = module._ivalue()->compilation_unit()->create_function(
      c10::QualifiedName(*module.type()->name(), std::string(method_name)), state->graph);
  module.type()->addMethod(forward);
  return MakeModule(std::move(module)).release();
}

}  // namespace tsb::runtime
