// Functions registered by plugins, callable from every host by name. Each
// becomes a c10::FunctionSchema bound by the one binder
// (core/call/call.h), exactly as module methods and operators are:
// keywords, defaults, the tsb_schema_info a host reads.
#ifndef TSBRIDGE_CORE_PLUGINS_FUNCTION_REGISTRY_H_
#define TSBRIDGE_CORE_PLUGINS_FUNCTION_REGISTRY_H_

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/call/call.h"
#include "core/types/lock_free_map.h"
#include "tsbridge/plugin/kind_codec.hpp"
#include "tsbridge/plugin.h"

namespace tsb::plugins {

// One parameter as a plugin declared it.
struct PluginParam {
  std::string name;
  c10::TypePtr type;
  c10::optional<c10::IValue> default_value;
  bool kwarg_only = false;
};

struct PluginFunction {
  std::string name;  // "torchsparse::relabel"
  std::vector<PluginParam> params;
  c10::TypePtr return_type;  // a registered record keeps its name
  tsb_plugin_function fn = nullptr;
  void* data = nullptr;
  std::string plugin;
  // Built by Register, once every type the plugin registers is published.
  std::unique_ptr<call::Signature> signature;
};

class FunctionRegistry {
 public:
  static FunctionRegistry& Global();

  // Lock-free.
  const PluginFunction* Find(absl::string_view name) const noexcept;
  // Prepares the function's signature and publishes it.
  absl::Status Register(PluginFunction function);
  // The qualified names registered so far.
  std::vector<std::string> Names();

  // Binds the arguments to the signature (positional, keywords, defaults,
  // each coerced to its declared type), calls, and converts the result by
  // the declared return type. Errors carry "name(): argument 'x'".
  static absl::Status Call(const PluginFunction& function, const call::HostArgs& args,
                           tsb_any* out);

 private:
  // Call's steps; their errors are not yet named by the call.
  static absl::Status Run(const PluginFunction& function, const call::HostArgs& args,
                          call::Binding& binding, tsb_any* out);

  std::mutex mutex_;
  LockFreeMap<std::string, PluginFunction, 1024> functions_;
  std::vector<std::string> names_;  // guarded by mutex_
};

}  // namespace tsb::plugins

#endif  // TSBRIDGE_CORE_PLUGINS_FUNCTION_REGISTRY_H_
