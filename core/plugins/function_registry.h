// Functions registered by plugins, callable from every host by name.
#ifndef TSBRIDGE_CORE_PLUGINS_FUNCTION_REGISTRY_H_
#define TSBRIDGE_CORE_PLUGINS_FUNCTION_REGISTRY_H_

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/registry/lock_free_map.h"
#include "tsbridge/kind_codec.hpp"
#include "tsbridge/plugin.h"

namespace tsb {

// The host's view of a function's schema (tsb_function_get_schema): strings
// owned here, pointed to by the infos; heap-held so the pointers survive
// moves of the PluginFunction.
struct FunctionDescription {
  std::vector<std::string> annotations;  // arguments, then the return
  std::vector<tsb_argument_info> arguments, returns;
};

struct PluginFunction {
  std::string name;  // "torchsparse::relabel"
  std::vector<std::string> arg_names;
  std::vector<c10::TypePtr> arg_types;
  c10::TypePtr return_type;
  std::string schema;  // "torchsparse::relabel(Tensor col, Tensor idx) -> Tensor"
  tsb_plugin_function fn = nullptr;
  void* data = nullptr;
  std::string plugin;
  std::shared_ptr<const FunctionDescription> description;  // set by Register
};

class FunctionRegistry {
 public:
  static FunctionRegistry& Global();

  // Lock-free.
  const PluginFunction* Find(absl::string_view name) const noexcept;
  absl::Status Register(PluginFunction function);

  // Coerces each argument to its declared type, calls, and converts the
  // result by the declared return type. Errors carry "name(): argument 'x'".
  static absl::Status Call(const PluginFunction& function, const tsb_any* args,
                           size_t n, tsb_any* out);

  // Fills *out with pointers into `function` (process lifetime).
  static void Describe(const PluginFunction& function, tsb_schema_info* out);

 private:
  std::mutex mutex_;
  LockFreeMap<std::string, PluginFunction, 1024> functions_;
};

// "name(T1 a, T2 b) -> R", the way LibTorch prints schemas.
std::string FormatSchema(const std::string& name, const std::vector<std::string>& arg_names,
                         const std::vector<c10::TypePtr>& arg_types,
                         const c10::TypePtr& return_type);

}  // namespace tsb

#endif  // TSBRIDGE_CORE_PLUGINS_FUNCTION_REGISTRY_H_
