// Operator libraries (TORCH_LIBRARY shared libraries), seen from the host.
#include "core/abi/guard.h"
#include "core/abi/loaded.h"
#include "core/runtime/library_loader.h"

using tsb::runtime::LibraryLoader;
using tsb::abi::Guard;

extern "C" {

tsb_status* tsb_library_load(const char* path_or_name, int32_t* out) {
  return Guard([&]() -> absl::Status {
    return tsb::abi::LoadInto(LibraryLoader::Global(), path_or_name, "path_or_name", out);
  });
}

tsb_status* tsb_library_load_from_env(void) {
  return Guard([&]() -> absl::Status {
    return tsb::abi::LoadEachIn("TSB_LIBRARY_PATH", [](const std::string& entry) {
      absl::Status loaded = LibraryLoader::Global().Load(entry).status();
      if (loaded.ok()) return loaded;
      return absl::Status(loaded.code(), absl::StrCat("TSB_LIBRARY_PATH: ", loaded.message()));
    });
  });
}

tsb_status* tsb_library_count(size_t* out) {
  return Guard([&]() -> absl::Status { return tsb::abi::CountInto(LibraryLoader::Global(), out); });
}

tsb_status* tsb_library_get_info(int32_t id, tsb_library_info* out) {
  return Guard([&]() -> absl::Status {
    return tsb::abi::DescribeInto(
        LibraryLoader::Global(), id, "operator library", out, "tsb_library_info",
        [](const tsb::runtime::LoadedLibrary& library, tsb_library_info* info) {
          info->name = library.name.c_str();
          info->path = library.path.c_str();
          info->num_operators = library.operator_ptrs.size();
          info->operators = library.operator_ptrs.data();
        });
  });
}

}  // extern "C"
