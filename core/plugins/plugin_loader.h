// Loads plugins: checks a shared library's descriptor, lets it register into
// a staging area, and publishes what it registered only if all of it is
// valid. Loading is serialised; listing loaded plugins takes no lock. The
// lock is recursive: a plugin's registration may need a deferred plugin
// (deferred_plugins.h), loaded then on the same thread.
#ifndef TSBRIDGE_CORE_PLUGINS_PLUGIN_LOADER_H_
#define TSBRIDGE_CORE_PLUGINS_PLUGIN_LOADER_H_

#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/types/lock_free_list.h"
#include "tsbridge/tsbridge.h"

namespace tsb::plugins {

struct LoadedPlugin {
  std::string name, version, path, platform_tag;
  std::vector<std::string> kinds, types, functions;
  // C views of the three lists, for tsb_plugin_info.
  std::vector<const char*> kind_ptrs, type_ptrs, function_ptrs;
};

class PluginLoader {
 public:
  static PluginLoader& Global();

  // Loads the plugin at `path` (or returns the id of the one already loaded
  // from that file).
  absl::StatusOr<int32_t> Load(const std::string& path);
  // Loads every *.so in `dir`, in name order.
  absl::Status LoadDirectory(const std::string& dir);

  int32_t Count() const noexcept { return plugins_.Count(); }
  const LoadedPlugin* Get(int32_t id) const noexcept { return plugins_.Get(id); }

  // Whether the plugin file at `path` is loaded or being loaded (a caller
  // holds Lock()).
  bool IsLoadedOrLoading(const std::string& path);

  // Serialises loading; DeferredPlugins keeps its state under it too, so
  // that the two never wait for each other in opposite orders.
  std::unique_lock<std::recursive_mutex> Lock() {
    return std::unique_lock<std::recursive_mutex>(mutex_);
  }

 private:
  static constexpr int32_t kMaxPlugins = 1024;
  absl::StatusOr<int32_t> LoadLocked(const std::string& path);
  // The id of the plugin loaded from `canonical` (a realpath), or -1.
  int32_t LoadedId(const std::string& canonical) const noexcept;

  std::recursive_mutex mutex_;
  std::vector<std::string> loading_;  // canonical paths, outermost first
  LockFreeList<LoadedPlugin, kMaxPlugins> plugins_;
};

// The directory of bundled plugins: <dir of libtsbridge.so>/tsbridge/plugins.
const std::string& BundledPluginDir();

}  // namespace tsb::plugins

#endif  // TSBRIDGE_CORE_PLUGINS_PLUGIN_LOADER_H_
