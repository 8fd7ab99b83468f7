// Plugins offered rather than loaded (tsb_plugin_defer_bundled): an index
// written when the plugins were built (plugins/index/plugin_index.cc) says
// what each provides, and a plugin is loaded the first time a lookup misses
// something it provides. A process that never needs a bundled kind pays no
// dlopen for it: each dlopen of a plugin walks LibTorch's ~300 dependencies
// (docs/benchmarks.md, Plugin load).
//
// What counts as a need (docs/plugins.md):
//   - a kind with no codec (Tuple, Optional, Union), met while interning;
//   - a type string, module code, TorchScript source or operator or function
//     name that mentions a named type the plugin registers, one of its
//     functions, or one of its namespaces as `ns::`, `ops.ns.` or
//     `classes.ns.` (its TORCH_LIBRARY operators and classes).
#ifndef TSBRIDGE_CORE_PLUGINS_DEFERRED_PLUGINS_H_
#define TSBRIDGE_CORE_PLUGINS_DEFERRED_PLUGINS_H_

#include <atomic>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/types/type_registry.h"

namespace tsb::plugins {

// One plugin of an index: its file and what loading it registers.
struct OfferedPlugin {
  std::string path;  // absolute
  std::string name;
  std::vector<std::string> kinds;  // as KindName spells them: "Tuple"
  std::vector<std::string> tokens;  // substrings of a text that need it
  bool tried = false;
  absl::Status failure;  // why loading it failed, given to every later need
};

class DeferredPlugins final : public MissHandler {
 public:
  static DeferredPlugins& Global();

  // Offers the plugins `dir`/index.json lists and loads at once every *.so of
  // `dir` it does not list. Without an index, loads the whole directory.
  // Offering a directory again is a no-op.
  absl::Status Offer(const std::string& dir);

  // Loads every offered plugin not loaded yet (tsb_plugin_load_bundled).
  absl::Status LoadAll();

  // MissHandler: loads every offered plugin that provides what was missed.
  absl::StatusOr<bool> ProvideKind(c10::TypeKind kind) override;
  absl::StatusOr<bool> ProvideNamesIn(absl::string_view text) override;

  // How many offered plugins are not loaded yet.
  int pending() const noexcept { return pending_.load(std::memory_order_acquire); }

 private:
  template <typename Needs>
  absl::StatusOr<bool> LoadWhere(Needs needs);

  // Guarded by PluginLoader's lock.
  std::vector<std::string> offered_dirs_;
  std::vector<OfferedPlugin> offered_;
  std::atomic<int> pending_{0};
  std::atomic<bool> any_failed_{false};
};

// The file name of the index next to a directory's plugins.
inline constexpr absl::string_view kPluginIndexFile = "index.json";

// Parses an index (plugins/index/plugin_index.cc writes it); paths are made
// absolute against `dir`. INVALID_ARGUMENT says what is wrong and where.
absl::StatusOr<std::vector<OfferedPlugin>> ParsePluginIndex(absl::string_view json,
                                                            const std::string& dir);

}  // namespace tsb::plugins

#endif  // TSBRIDGE_CORE_PLUGINS_DEFERRED_PLUGINS_H_
