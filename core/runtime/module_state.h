// What a loaded module holds, as users of torch.jit.load expect to reach
// it: train/eval mode, named parameters and buffers (the module's own
// tensors, so an in-place update from a host changes the module),
// attributes, submodules, and the TorchScript code and graphs as text.
// Behind tsb_module_{set,get}_training, _count/_get_parameter, ... in
// core/abi/module_state_abi.cc. Light header: no JIT include.
#ifndef TSBRIDGE_CORE_RUNTIME_MODULE_STATE_H_
#define TSBRIDGE_CORE_RUNTIME_MODULE_STATE_H_

#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tsbridge/tsbridge.h"

namespace tsb::runtime {

// Fills the name lists a host reads (called by MakeModule).
void ListNames(tsb_module& module);

// Sets `training` on the module and every submodule (Module.train(mode));
// modules without the attribute (tsb_module_compile's) are left alone.
absl::Status SetTraining(tsb_module& module, bool training);
bool GetTraining(const tsb_module& module);

// What a named list holds: parameters and buffers recursively with dotted
// names ("fc1.weight"), children one level down.
enum class Slots { kParameters, kBuffers, kChildren };
size_t CountSlots(const tsb_module& module, Slots slots);
// Item i: its name (lives as long as the module) and its tensor as a new
// reference.
absl::Status GetTensorSlot(const tsb_module& module, Slots slots, size_t i,
                           const char** name, tsb_any* out);
absl::StatusOr<tsb_module*> GetChild(const tsb_module& module, size_t i, const char** name);

// Attributes of the module's own class (parameters, buffers, submodules,
// plain attributes such as `training`), by declared type.
size_t CountAttributes(const tsb_module& module);
absl::StatusOr<const char*> AttributeName(const tsb_module& module, size_t i);
absl::Status GetAttribute(const tsb_module& module, const std::string& name, tsb_any* out);
absl::Status SetAttribute(tsb_module& module, const std::string& name, const tsb_any& value);

// state_dict() as a Dict[str, Tensor] of the module's own tensors, and
// load_state_dict() from one (tsb_module_get_state, tsb_module_set_state).
absl::Status GetState(const tsb_module& module, tsb_any* out);
absl::Status SetState(tsb_module& module, const tsb_any& state, bool strict);

// register_parameter() / register_buffer() on the module's own class.
absl::Status SetParameter(tsb_module& module, const std::string& name, const tsb_any& tensor,
                          bool is_buffer);

// The class's TorchScript source (PyTorch's Module.code prints the same),
// and a method's graph (Method.graph).
absl::StatusOr<std::string> Code(const tsb_module& module);
absl::StatusOr<std::string> Graph(const tsb_module& module, const std::string& method);

}  // namespace tsb::runtime

#endif  // TSBRIDGE_CORE_RUNTIME_MODULE_STATE_H_
