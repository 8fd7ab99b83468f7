// The staging area a plugin registers into. Nothing is visible to lookups
// until Commit(); a Registration destroyed without Commit() leaves the
// registries as they were.
#ifndef TSBRIDGE_CORE_PLUGINS_REGISTRATION_H_
#define TSBRIDGE_CORE_PLUGINS_REGISTRATION_H_

#include <memory>
#include <string>
#include <vector>

#include "core/plugins/function_registry.h"
#include "core/plugins/plugin_loader.h"
#include "core/types/type_parser.h"
#include "tsbridge/plugin/kind_codec.hpp"
#include "tsbridge/plugin.h"

namespace tsb::plugins {

// A kind as plugin records name it: "Tuple" for c10::TypeKind::TupleType.
std::string KindName(c10::TypeKind kind);

class Registration {
 public:
  explicit Registration(std::string plugin);
  Registration(const Registration&) = delete;
  Registration& operator=(const Registration&) = delete;
  ~Registration();

  // The C table handed to the plugin's register function.
  tsb_registrar Table();

  // Each validates against the registries and what is already staged.
  absl::Status AddKindCodec(std::unique_ptr<KindCodec> codec);
  absl::Status AddType(const char* name, const char* annotation,
                       const char* const* field_names, size_t num_fields);
  // `args` from slot 3 (slot 2's names and types become arguments without
  // defaults). Does not take `data`: the slot frees it on failure.
  absl::Status AddFunction(const char* name, const tsb_plugin_argument* args, size_t num_args,
                           const char* return_type, tsb_plugin_function fn, void* data,
                           void (*free_data)(void*));

  // Publishes everything staged and lists it in `record`. The caller holds
  // the loader's lock, so nothing validated can have become a duplicate.
  absl::Status Commit(LoadedPlugin& record);

 private:
  struct StagedFunction {
    PluginFunction function;
    void (*free_data)(void*);
  };
  absl::StatusOr<c10::TypePtr> Parse(const char* annotation) const;
  bool IsStagedName(absl::string_view name) const;

  std::string plugin_;
  std::vector<std::unique_ptr<KindCodec>> codecs_;
  std::vector<std::pair<std::string, c10::TypePtr>> types_;
  std::vector<StagedFunction> functions_;
  TypeNameLookup staged_types_;  // lets a plugin's functions use its own types
};

}  // namespace tsb::plugins

#endif  // TSBRIDGE_CORE_PLUGINS_REGISTRATION_H_
