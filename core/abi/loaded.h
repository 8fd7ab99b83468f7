// Plugins and operator libraries as the host ABI shows both (tsb_plugin_*,
// tsb_library_*): loaded by path or from a colon-separated environment
// variable, counted, and described by id. One piece of code for the two;
// each loader (PluginLoader, LibraryLoader) has Count() and Get(id).
#ifndef TSBRIDGE_CORE_ABI_LOADED_H_
#define TSBRIDGE_CORE_ABI_LOADED_H_

#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/abi/arguments.h"

namespace tsb::abi {

// tsb_*_load: the id loader.Load(path) gives, stored in *out when out is set.
template <typename Loader>
absl::Status LoadInto(Loader& loader, const char* path, const char* name, int32_t* out) {
  TSB_RETURN_IF_ERROR(CheckArg(path, name));
  TSB_ASSIGN_OR_RETURN(int32_t id, loader.Load(std::string(path)));
  if (out != nullptr) *out = id;
  return absl::OkStatus();
}

// tsb_*_load_from_env: load(entry) for each entry of `variable` in order,
// stopping at the first failure; an unset variable loads nothing.
template <typename Load>
absl::Status LoadEachIn(const char* variable, Load&& load) {
  const char* value = std::getenv(variable);
  if (value == nullptr) return absl::OkStatus();
  for (absl::string_view entry : absl::StrSplit(value, ':', absl::SkipEmpty())) {
    TSB_RETURN_IF_ERROR(load(std::string(entry)));
  }
  return absl::OkStatus();
}

// tsb_*_count.
template <typename Loader>
absl::Status CountInto(const Loader& loader, size_t* out) {
  TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
  *out = static_cast<size_t>(loader.Count());
  return absl::OkStatus();
}

// tsb_*_get_info: describe(record, info) fills the host's versioned struct
// (`info_name`) for the `what` loaded as `id`; NOT_FOUND names how many are.
template <typename Loader, typename Info, typename Describe>
absl::Status DescribeInto(const Loader& loader, int32_t id, const char* what, Info* out,
                          const char* info_name, Describe&& describe) {
  return VersionedOut(out, info_name, [&](Info* info) -> absl::Status {
    const auto* loaded = loader.Get(id);
    if (loaded == nullptr) {
      return absl::NotFoundError(
          absl::StrCat("no ", what, " with id ", id, " (", loader.Count(), " loaded)"));
    }
    describe(*loaded, info);
    return absl::OkStatus();
  });
}

}  // namespace tsb::abi

#endif  // TSBRIDGE_CORE_ABI_LOADED_H_
