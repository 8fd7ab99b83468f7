// Plugins and the functions they register, seen from the host.
#include <cstdlib>
#include <filesystem>
#include <new>
#include <set>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/abi/arguments.h"
#include "core/abi/guard.h"
#include "core/abi/loaded.h"
#include "core/plugins/deferred_plugins.h"
#include "core/plugins/function_registry.h"
#include "core/plugins/plugin_loader.h"
#include "core/runtime/runtime.h"

using tsb::plugins::BundledPluginDir;
using tsb::plugins::DeferredPlugins;
using tsb::plugins::FunctionRegistry;
using tsb::plugins::LoadedPlugin;
using tsb::plugins::PluginFunction;
using tsb::plugins::PluginLoader;
using tsb::abi::CheckArg;
using tsb::abi::Guard;

namespace {

// A function by name; a deferred plugin that provides it is loaded first.
absl::StatusOr<const PluginFunction*> FindFunctionOrNull(const char* name) {
  TSB_RETURN_IF_ERROR(CheckArg(name, "name"));
  const PluginFunction* function = FunctionRegistry::Global().Find(name);
  if (function != nullptr) return function;
  TSB_ASSIGN_OR_RETURN(bool loaded, DeferredPlugins::Global().ProvideNamesIn(name));
  return loaded ? FunctionRegistry::Global().Find(name) : nullptr;
}

// What a name calls: a plugin function, else (nullptr) a dispatcher or JIT
// operator of that name; NOT_FOUND when neither. One lookup of each.
absl::StatusOr<const PluginFunction*> FunctionOrOperator(const char* name) {
  TSB_ASSIGN_OR_RETURN(const PluginFunction* function, FindFunctionOrNull(name));
  if (function != nullptr || tsb::runtime::NumOverloads(name).ok()) return function;
  return absl::NotFoundError(
      absl::StrCat("no function named '", name, "' (functions come from loaded plugins)"));
}

}  // namespace

extern "C" {

tsb_status* tsb_plugin_load(const char* path, int32_t* out) {
  return Guard([&]() -> absl::Status {
    return tsb::abi::LoadInto(PluginLoader::Global(), path, "path", out);
  });
}

// An entry is a plugin file or a directory of them.
tsb_status* tsb_plugin_load_from_env(void) {
  return Guard([&]() -> absl::Status {
    return tsb::abi::LoadEachIn("TSB_PLUGIN_PATH", [](const std::string& entry) {
      std::error_code error;
      if (std::filesystem::is_directory(entry, error)) {
        return PluginLoader::Global().LoadDirectory(entry);
      }
      return PluginLoader::Global().Load(entry).status();
    });
  });
}

tsb_status* tsb_plugin_load_bundled(void) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(DeferredPlugins::Global().Offer(BundledPluginDir()));
    return DeferredPlugins::Global().LoadAll();
  });
}

tsb_status* tsb_plugin_defer_bundled(void) {
  return Guard([&]() -> absl::Status {
    return DeferredPlugins::Global().Offer(BundledPluginDir());
  });
}

tsb_status* tsb_plugin_get_bundled_dir(const char** out) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    *out = BundledPluginDir().c_str();
    return absl::OkStatus();
  });
}

tsb_status* tsb_plugin_count(size_t* out) {
  return Guard([&]() -> absl::Status { return tsb::abi::CountInto(PluginLoader::Global(), out); });
}

tsb_status* tsb_plugin_get_info(int32_t id, tsb_plugin_info* out) {
  return Guard([&]() -> absl::Status {
    return tsb::abi::DescribeInto(
        PluginLoader::Global(), id, "plugin", out, "tsb_plugin_info",
        [](const LoadedPlugin& plugin, tsb_plugin_info* info) {
          info->name = plugin.name.c_str();
          info->version = plugin.version.c_str();
          info->path = plugin.path.c_str();
          info->platform_tag = plugin.platform_tag.c_str();
          info->num_kinds = plugin.kind_ptrs.size();
          info->kinds = plugin.kind_ptrs.data();
          info->num_types = plugin.type_ptrs.size();
          info->types = plugin.type_ptrs.data();
          info->num_functions = plugin.function_ptrs.size();
          info->functions = plugin.function_ptrs.data();
        });
  });
}

tsb_status* tsb_function_call(const char* name, const tsb_call_args* args, tsb_any* out) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    tsb::call::HostArgs host;
    TSB_RETURN_IF_ERROR(tsb::abi::CallArgsArg(args, &host));
    TSB_ASSIGN_OR_RETURN(const PluginFunction* function, FunctionOrOperator(name));
    // An operator registered with TORCH_LIBRARY is called the same way.
    if (function == nullptr) return tsb::runtime::CallOperator(name, host, out);
    return FunctionRegistry::Call(*function, host, out);
  });
}

tsb_status* tsb_function_get_schema(const char* name, tsb_schema_info* out) {
  return Guard([&]() -> absl::Status {
    TSB_ASSIGN_OR_RETURN(const PluginFunction* function, FunctionOrOperator(name));
    if (function == nullptr) {
      TSB_ASSIGN_OR_RETURN(size_t overloads, tsb::runtime::NumOverloads(name));
      if (overloads != 1) {
        return absl::InvalidArgumentError(absl::StrCat(
            "operator ", name, " has ", overloads,
            " overloads: read each with tsb_op_get_overload"));
      }
      return tsb::abi::VersionedOut(out, "tsb_schema_info", [&](tsb_schema_info* info) {
        return tsb::runtime::DescribeOverload(name, 0, info);
      });
    }
    return tsb::abi::VersionedOut(out, "tsb_schema_info", [&](tsb_schema_info* info) {
      function->signature->Describe(info);
      return absl::OkStatus();
    });
  });
}

tsb_status* tsb_op_get_names(const char* ns, const char*** names, size_t* n) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(names, "names"));
    TSB_RETURN_IF_ERROR(CheckArg(n, "n"));
    const std::string prefix = ns == nullptr ? "" : absl::StrCat(ns, "::");
    std::set<std::string> found;
    auto add = [&](std::string name) {
      if (absl::StartsWith(name, prefix)) found.insert(std::move(name));
    };
    for (std::string& name : tsb::runtime::OperatorNames()) add(std::move(name));
    for (std::string& name : FunctionRegistry::Global().Names()) add(std::move(name));
    auto* array = static_cast<const char**>(std::malloc(sizeof(char*) * (found.size() + 1)));
    if (array == nullptr) throw std::bad_alloc();
    size_t i = 0;
    // Interned: a symbol's text lives as long as the process.
    for (const std::string& name : found) {
      array[i++] = c10::Symbol::fromQualString(name).toQualString();
    }
    *names = array;
    *n = found.size();
    return absl::OkStatus();
  });
}

}  // extern "C"
