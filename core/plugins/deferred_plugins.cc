#include "core/plugins/deferred_plugins.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/errors/status.h"
#include "core/plugins/plugin_loader.h"
#include "core/plugins/registration.h"

namespace tsb::plugins {
namespace {

absl::Status IndexError(const std::string& where, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("invalid plugin index ", where, ": ", what));
}

// A list of strings under `key` of one plugin's entry.
absl::StatusOr<std::vector<std::string>> Strings(const nlohmann::json& entry,
                                                 const char* key, const std::string& where) {
  std::vector<std::string> out;
  auto found = entry.find(key);
  if (found == entry.end()) return out;
  if (!found->is_array()) return IndexError(where, absl::StrCat("'", key, "' is not a list"));
  for (const nlohmann::json& item : *found) {
    if (!item.is_string() || item.get_ref<const std::string&>().empty()) {
      return IndexError(where, absl::StrCat("'", key, "' holds ", item.dump(),
                                            ", not a name"));
    }
    out.push_back(item.get<std::string>());
  }
  return out;
}

}  // namespace

absl::StatusOr<std::vector<OfferedPlugin>> ParsePluginIndex(absl::string_view json,
                                                            const std::string& dir) {
  const std::string index = absl::StrCat(dir, "/", kPluginIndexFile);
  nlohmann::json root = nlohmann::json::parse(json.begin(), json.end(), nullptr,
                                              /*allow_exceptions=*/false);
  if (root.is_discarded()) return IndexError(index, "not JSON");
  if (!root.is_object() || root.value("tsbridge_plugin_index", 0) != 1 ||
      !root.contains("plugins") || !root["plugins"].is_array()) {
    return IndexError(index, "expected {\"tsbridge_plugin_index\": 1, \"plugins\": [...]}");
  }
  std::vector<OfferedPlugin> plugins;
  for (size_t i = 0; i < root["plugins"].size(); ++i) {
    const nlohmann::json& entry = root["plugins"][i];
    const std::string where = absl::StrCat(index, " → plugins → [", i, "]");
    if (!entry.is_object() || !entry.contains("file") || !entry["file"].is_string() ||
        !entry.contains("name") || !entry["name"].is_string()) {
      return IndexError(where, "expected an object with a \"file\" and a \"name\"");
    }
    OfferedPlugin plugin;
    const std::string file = entry["file"].get<std::string>();
    if (file.empty() || absl::StrContains(file, '/')) {
      return IndexError(where, absl::StrCat("\"file\" is \"", file,
                                            "\", not a file name in the index's directory"));
    }
    plugin.path = absl::StrCat(dir, "/", file);
    plugin.name = entry["name"].get<std::string>();
    TSB_ASSIGN_OR_RETURN(plugin.kinds, Strings(entry, "kinds", where));
    TSB_ASSIGN_OR_RETURN(std::vector<std::string> types, Strings(entry, "types", where));
    TSB_ASSIGN_OR_RETURN(std::vector<std::string> functions, Strings(entry, "functions", where));
    TSB_ASSIGN_OR_RETURN(std::vector<std::string> namespaces,
                         Strings(entry, "namespaces", where));
    plugin.tokens = std::move(types);
    plugin.tokens.insert(plugin.tokens.end(), functions.begin(), functions.end());
    for (const std::string& ns : namespaces) {
      // An operator name, TorchScript code calling it, a torchbind class.
      plugin.tokens.push_back(absl::StrCat(ns, "::"));
      plugin.tokens.push_back(absl::StrCat("ops.", ns, "."));
      plugin.tokens.push_back(absl::StrCat("classes.", ns, "."));
    }
    plugins.push_back(std::move(plugin));
  }
  return plugins;
}

DeferredPlugins& DeferredPlugins::Global() {
  static DeferredPlugins* const deferred = new DeferredPlugins();  // never destroyed
  return *deferred;
}

absl::Status DeferredPlugins::Offer(const std::string& dir) {
  PluginLoader& loader = PluginLoader::Global();
  auto lock = loader.Lock();
  if (std::find(offered_dirs_.begin(), offered_dirs_.end(), dir) != offered_dirs_.end()) {
    return absl::OkStatus();
  }
  std::ifstream file(absl::StrCat(dir, "/", kPluginIndexFile));
  if (!file) {
    // No index (plugins copied in by hand): load them all, as before.
    TSB_RETURN_IF_ERROR(loader.LoadDirectory(dir));
    offered_dirs_.push_back(dir);
    return absl::OkStatus();
  }
  std::stringstream text;
  text << file.rdbuf();
  TSB_ASSIGN_OR_RETURN(std::vector<OfferedPlugin> listed, ParsePluginIndex(text.str(), dir));
  std::error_code error;
  for (const OfferedPlugin& plugin : listed) {
    if (!std::filesystem::is_regular_file(plugin.path, error)) {
      return absl::NotFoundError(absl::StrCat("the plugin index of ", dir, " lists ",
                                              plugin.path, ", which is not there"));
    }
  }
  // A plugin the index does not know is loaded now: nothing says what it needs.
  std::vector<std::string> unlisted;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    const std::string path = entry.path().string();
    if (entry.path().extension() != ".so") continue;
    bool listed_here = std::any_of(listed.begin(), listed.end(), [&](const OfferedPlugin& p) {
      return std::filesystem::equivalent(p.path, path, error);
    });
    if (!listed_here) unlisted.push_back(path);
  }
  std::sort(unlisted.begin(), unlisted.end());
  for (const std::string& path : unlisted) TSB_RETURN_IF_ERROR(loader.Load(path).status());
  for (OfferedPlugin& plugin : listed) offered_.push_back(std::move(plugin));
  offered_dirs_.push_back(dir);
  pending_.fetch_add(static_cast<int>(listed.size()), std::memory_order_acq_rel);
  TypeRegistry::Global().SetMissHandler(this);
  return absl::OkStatus();
}

template <typename Needs>
absl::StatusOr<bool> DeferredPlugins::LoadWhere(Needs needs) {
  if (pending() == 0 && !any_failed_.load(std::memory_order_acquire)) return false;
  PluginLoader& loader = PluginLoader::Global();
  auto lock = loader.Lock();
  bool loaded_one = false;
  // By index: a plugin loaded here may need another, offered after it.
  for (size_t i = 0; i < offered_.size(); ++i) {
    OfferedPlugin& plugin = offered_[i];
    if ((plugin.tried && plugin.failure.ok()) || !needs(plugin)) continue;
    if (plugin.tried) return plugin.failure;  // a failed load is not retried
    plugin.tried = true;
    pending_.fetch_sub(1, std::memory_order_acq_rel);
    // Loaded by path already, or loading now (its own registration named
    // one of its types): nothing to do.
    if (loader.IsLoadedOrLoading(plugin.path)) continue;
    absl::StatusOr<int32_t> id = loader.Load(plugin.path);
    if (!id.ok()) {
      plugin.failure = absl::Status(
          id.status().code(), absl::StrCat("the deferred plugin '", plugin.name,
                                           "' that provides it did not load: ",
                                           id.status().message()));
      any_failed_.store(true, std::memory_order_release);
      return plugin.failure;
    }
    loaded_one = true;
  }
  return loaded_one;
}

absl::Status DeferredPlugins::LoadAll() {
  return LoadWhere([](const OfferedPlugin&) { return true; }).status();
}

absl::StatusOr<bool> DeferredPlugins::ProvideKind(c10::TypeKind kind) {
  const std::string name = KindName(kind);
  return LoadWhere([&](const OfferedPlugin& plugin) {
    return std::find(plugin.kinds.begin(), plugin.kinds.end(), name) != plugin.kinds.end();
  });
}

absl::StatusOr<bool> DeferredPlugins::ProvideNamesIn(absl::string_view text) {
  return LoadWhere([&](const OfferedPlugin& plugin) {
    return std::any_of(plugin.tokens.begin(), plugin.tokens.end(),
                       [&](const std::string& token) { return absl::StrContains(text, token); });
  });
}

}  // namespace tsb::plugins
