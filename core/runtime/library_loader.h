// Loads operator libraries: shared libraries that register operators with
// TORCH_LIBRARY (torchvision's _C and image libraries, a project's own
// kernels), not tsbridge plugins. A library is opened once, RTLD_NOW |
// RTLD_GLOBAL, and never closed; its static initialisers register its
// operators with LibTorch's dispatcher, where modules and tsb_op_call find
// them. A name ("torchvision", "torchaudio") is looked up by a rule in a
// documented list of places (docs/vision.md), so a user need not type a path.
#ifndef TSBRIDGE_CORE_RUNTIME_LIBRARY_LOADER_H_
#define TSBRIDGE_CORE_RUNTIME_LIBRARY_LOADER_H_

#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/types/lock_free_list.h"

namespace tsb::runtime {

struct LoadedLibrary {
  std::string name;  // the name it was asked by, or the file's name
  std::string path;  // canonical
  std::string build_id;  // GNU build id (hex), "" when the file has none
  std::vector<std::string> operators;  // those it registered, sorted
  std::vector<const char*> operator_ptrs;  // C views, for tsb_library_info
};

class LibraryLoader {
 public:
  static LibraryLoader& Global();

  // Loads a file (a path: it contains '/' or ends in ".so") or every file of
  // a library name. Returns the id of the first file; a file loaded before
  // keeps its id (loading twice is a no-op).
  absl::StatusOr<int32_t> Load(const std::string& path_or_name);

  int32_t Count() const noexcept { return libraries_.Count(); }
  const LoadedLibrary* Get(int32_t id) const noexcept { return libraries_.Get(id); }

 private:
  static constexpr int32_t kMaxLibraries = 256;
  absl::StatusOr<int32_t> LoadFileLocked(const std::string& path, const std::string& name);

  std::mutex mutex_;
  LockFreeList<LoadedLibrary, kMaxLibraries> libraries_;
};

// The files a library name stands for: the Python package of that name in
// one of LibrarySearchDirs(), its <name>/_C*.so or <name>/lib/lib<name>*.so
// (required; "torchvision", "torchaudio"), with its companions (torchvision's
// image*.so) when present. NotFound says where it looked (docs/vision.md).
absl::StatusOr<std::vector<std::string>> FindLibraryByName(absl::string_view name);

// Where libraries named by name are looked for, in order: Debian's
// /usr/lib/python3/dist-packages, then /usr/local/lib/python3*/ and
// /usr/lib/python3*/{dist,site}-packages, the same under $VIRTUAL_ENV/lib
// and $CONDA_PREFIX/lib, and ~/.local/lib/python3*/site-packages. When set,
// $TSB_LIBRARY_SEARCH_PATH (colon-separated directories) replaces the list.
std::vector<std::string> LibrarySearchDirs();

// The operator library that registers a namespace's operators, as the user
// would ask for it: "torchvision" for torchvision:: and image::, "torchaudio"
// for torchaudio:: when FindLibraryByName finds it; std::nullopt otherwise.
std::optional<std::string> LibraryForNamespace(absl::string_view ns);

// When a LibTorch error says a module's code calls an operator that is not
// registered ("Unknown builtin op: torchvision::nms"), an error naming the
// operator and the library to load; otherwise std::nullopt. `who` is what
// calls it ("cannot load module \"m.pt\": its code", "the source").
std::optional<absl::Status> MissingOperatorError(absl::string_view torch_message,
                                                 absl::string_view who);
// The advice alone for an operator name: "load the operator library
// 'torchvision' first (tsb_library_load(\"torchvision\", NULL))", C's call,
// which the other hosts replace with their own (docs/hosts.md).
std::string MissingOperatorHint(absl::string_view op);

}  // namespace tsb::runtime

#endif  // TSBRIDGE_CORE_RUNTIME_LIBRARY_LOADER_H_
