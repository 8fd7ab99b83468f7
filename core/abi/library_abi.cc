// Operator libraries (TORCH_LIBRARY shared libraries), seen from the host.
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/abi/arguments.h"
#include "core/abi/guard.h"
#include "core/runtime/library_loader.h"

using tsb::abi::CheckArg;
using tsb::abi::Guard;

extern "C" {

tsb_status* tsb_library_load(const char* path_or_name, int32_t* out) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(path_or_name, "path_or_name"));
    TSB_ASSIGN_OR_RETURN(int32_t id, tsb::LibraryLoader::Global().Load(path_or_name));
    if (out != nullptr) *out = id;
    return absl::OkStatus();
  });
}

tsb_status* tsb_library_load_from_env(void) {
  return Guard([&]() -> absl::Status {
    const char* value = std::getenv("TSB_LIBRARY_PATH");
    if (value == nullptr) return absl::OkStatus();
    for (absl::string_view entry : absl::StrSplit(value, ':', absl::SkipEmpty())) {
      absl::StatusOr<int32_t> id = tsb::LibraryLoader::Global().Load(std::string(entry));
      if (!id.ok()) {
        return absl::Status(id.status().code(),
                            absl::StrCat("TSB_LIBRARY_PATH: ", id.status().message()));
      }
    }
    return absl::OkStatus();
  });
}

tsb_status* tsb_library_count(size_t* out) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    *out = static_cast<size_t>(tsb::LibraryLoader::Global().Count());
    return absl::OkStatus();
  });
}

tsb_status* tsb_library_get_info(int32_t id, tsb_library_info* out) {
  return Guard([&]() -> absl::Status {
    return tsb::abi::VersionedOut(
        out, "tsb_library_info", [&](tsb_library_info* info) -> absl::Status {
          const tsb::LoadedLibrary* library = tsb::LibraryLoader::Global().Get(id);
          if (library == nullptr) {
            return absl::NotFoundError(absl::StrCat("no operator library with id ", id, " (",
                                                    tsb::LibraryLoader::Global().Count(),
                                                    " loaded)"));
          }
          info->name = library->name.c_str();
          info->path = library->path.c_str();
          info->num_operators = library->operator_ptrs.size();
          info->operators = library->operator_ptrs.data();
          return absl::OkStatus();
        });
  });
}

}  // extern "C"
