// The runtime behind the host ABI's tsb_module_*, tsb_object_call, tsb_op_*
// and tsb_module_trace (core/abi/runtime_abi.cc). Light header: the LibTorch JIT
// headers stay in the .cc files that need them.
#ifndef TSBRIDGE_CORE_RUNTIME_RUNTIME_H_
#define TSBRIDGE_CORE_RUNTIME_RUNTIME_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/call/call.h"
#include "tsbridge/tsbridge.h"

namespace tsb::runtime {

// Modules (module.cc). A new tsb_module owns a torch::jit::Module and its
// methods' signatures, prepared once.
absl::StatusOr<tsb_module*> LoadModule(const char* path);
absl::StatusOr<tsb_module*> CompileModule(const char* source);
absl::Status SaveModule(const tsb_module& module, const char* path);
absl::Status SaveModuleForMobile(const tsb_module& module, const char* path);
// A module to and from the bytes of a TorchScript archive.
absl::StatusOr<std::string> WriteModule(const tsb_module& module);
absl::StatusOr<tsb_module*> ReadModule(const char* data, size_t size);
void FreeModule(tsb_module* module) noexcept;
size_t NumMethods(const tsb_module& module);
absl::Status DescribeMethod(const tsb_module& module, size_t i, tsb_schema_info* out);
// An annotation that may name the classes, NamedTuples and Enums the
// module declares (tsb_module_parse_type).
absl::StatusOr<const TypeInfo*> ParseModuleType(const tsb_module& module,
                                                absl::string_view annotation);
absl::Status CallMethod(const tsb_module& module, absl::string_view method,
                        const call::HostArgs& args, tsb_any* out);
// Method i in DescribeMethod's order (tsb_module_call_method): no lookup.
absl::Status CallMethodAt(const tsb_module& module, size_t i, const call::HostArgs& args,
                          tsb_any* out);
// Calls the method and gives the graph the executor optimized for those
// arguments (ScriptModule.graph_for), as text.
absl::StatusOr<std::string> GraphFor(const tsb_module& module, absl::string_view method,
                                     const call::HostArgs& args);

// A TorchScript class instance to and from the bytes of a TorchScript
// archive whose module (kObjectHolder) holds it as the attribute `object`,
// so that its class's code travels with it (module.cc).
inline constexpr const char* kObjectHolder = "__torch__.tsb.ObjectHolder";
absl::StatusOr<std::string> WriteObject(const c10::IValue& object);
absl::StatusOr<c10::IValue> ReadObject(const char* data, size_t size);

// A method of a TorchScript class instance or a torchbind object (module.cc).
absl::Status CallObjectMethod(const c10::IValue& object, absl::string_view method,
                              const call::HostArgs& args, tsb_any* out);

// Dispatcher and JIT operators by qualified name (operators.cc).
absl::StatusOr<size_t> NumOverloads(absl::string_view name);
absl::Status DescribeOverload(absl::string_view name, size_t i, tsb_schema_info* out);
absl::Status CallOperator(absl::string_view name, const call::HostArgs& args, tsb_any* out);
// The qualified name of every JIT operator overload (names repeat).
std::vector<std::string> OperatorNames();

// Tracing a host function into a module whose one method, `forward` unless
// named, replays it (trace.cc).
absl::StatusOr<tsb_module*> Trace(tsb_trace_fn fn, void* user_data,
                                  const tsb_any* inputs, size_t num_inputs, bool strict = true,
                                  absl::string_view method_name = "forward");

}  // namespace tsb::runtime

#endif  // TSBRIDGE_CORE_RUNTIME_RUNTIME_H_
