// Writes the index of a directory of plugins, which tsb_plugin_defer_bundled
// reads (core/plugins/deferred_plugins.h): for each plugin, what loading it
// registers. The kinds, named types and functions come from tsb_plugin_info;
// the namespaces are those of the operators the dispatcher saw registered
// while the plugin loaded (its TORCH_LIBRARY blocks). Run by the build, so the
// index cannot drift from the plugins it describes:
//
//   tsbridge_plugin_index OUT.json PLUGIN.so...
//
// The plugins are listed in the order given; each one's file name is kept,
// relative to the index's directory.
#include <cstdio>
#include <fstream>
#include <memory>
#include <set>
#include <string>

#include <ATen/core/dispatch/Dispatcher.h>
#include <nlohmann/json.hpp>

#include "tsbridge/tsbridge.h"

namespace {

// The namespaces of operators registered while `current` is set (adding a
// listener replays every operator already registered: those are ignored).
class NamespaceRecorder final : public c10::OpRegistrationListener {
 public:
  explicit NamespaceRecorder(std::set<std::string>** current) : current_(current) {}
  void onOperatorRegistered(const c10::OperatorHandle& op) override {
    if (*current_ == nullptr) return;
    const std::string& name = op.operator_name().name;
    (*current_)->insert(name.substr(0, name.find("::")));
  }
  void onOperatorDeregistered(const c10::OperatorHandle&) override {}

 private:
  std::set<std::string>** current_;
};

nlohmann::json Strings(size_t n, const char* const* items) {
  nlohmann::json list = nlohmann::json::array();
  for (size_t i = 0; i < n; ++i) list.push_back(items[i]);
  return list;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s OUT.json PLUGIN.so...\n", argv[0]);
    return 2;
  }
  std::set<std::string>* current = nullptr;
  auto listening = c10::Dispatcher::singleton().addRegistrationListener(
      std::make_unique<NamespaceRecorder>(&current));
  nlohmann::json plugins = nlohmann::json::array();
  for (int i = 2; i < argc; ++i) {
    std::set<std::string> namespaces;
    current = &namespaces;
    int32_t id = -1;
    tsb_status* status = tsb_plugin_load(argv[i], &id);
    current = nullptr;
    tsb_plugin_info info{};
    info.struct_size = sizeof info;
    if (status == nullptr) status = tsb_plugin_get_info(id, &info);
    if (status != nullptr) {
      std::fprintf(stderr, "tsbridge_plugin_index: %s\n", tsb_status_get_message(status));
      tsb_status_free(status);
      return 1;
    }
    std::string file = argv[i];
    file = file.substr(file.find_last_of('/') + 1);
    plugins.push_back({{"file", file},
                       {"name", info.name},
                       {"kinds", Strings(info.num_kinds, info.kinds)},
                       {"types", Strings(info.num_types, info.types)},
                       {"functions", Strings(info.num_functions, info.functions)},
                       {"namespaces", namespaces}});
  }
  std::ofstream out(argv[1]);
  out << nlohmann::json{{"tsbridge_plugin_index", 1}, {"plugins", plugins}}.dump(2) << "\n";
  if (!out) {
    std::fprintf(stderr, "tsbridge_plugin_index: cannot write %s\n", argv[1]);
    return 1;
  }
  return 0;
}
