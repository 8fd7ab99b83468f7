#include "core/runtime/library_loader.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <set>

#include <torch/csrc/jit/runtime/operator.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/plugins/shared_object.h"
#include "tsbridge/plugin.h"

namespace tsb::runtime {
namespace {

namespace fs = std::filesystem;

// A library found by name is the Python package of that name in one of
// LibrarySearchDirs(), holding the file its package loads with
// torch.ops.load_library, by one of the two conventions PyTorch's domain
// libraries follow: <name>/_C*.so (torchvision) or <name>/lib/lib<name>*.so
// (torchaudio, torchtext). The first that exists, in this order, is required.
std::vector<std::string> MainFilePatterns(absl::string_view name) {
  return {"_C", absl::StrCat("lib/lib", name)};
}

// What the rule does not say: other files of a package that register
// operators, loaded too when present, and namespaces not named after their
// library. torchvision's image codecs (image::read_file, decode_jpeg, ...):
// up to 0.20 they need LibTorch only; 0.21's also refers to Python's C API
// (OpenLibrary).
struct Companion {
  const char* library;
  const char* file;  // a pattern as above, inside the package
  const char* ns;    // the namespace its operators live in
};
constexpr Companion kCompanions[] = {{"torchvision", "image", "image"}};

std::set<std::string> RegisteredOperatorNames() {
  std::set<std::string> names;
  for (const auto& op : torch::jit::getAllOperators()) {
    names.insert(op->schema().name());
  }
  return names;
}

bool IsPath(absl::string_view s) {
  return absl::StrContains(s, '/') || absl::EndsWith(s, ".so") ||
         absl::StrContains(s, ".so.");
}

// The file in `dir` named <prefix>*.so or <prefix>.*.so, if any.
std::optional<std::string> FindFile(const fs::path& dir, absl::string_view prefix) {
  std::error_code error;
  std::vector<std::string> matches;
  for (const auto& entry : fs::directory_iterator(dir, error)) {
    std::string file = entry.path().filename().string();
    if (absl::StartsWith(file, prefix) && absl::EndsWith(file, ".so") &&
        (file.size() == prefix.size() + 3 || file[prefix.size()] == '.')) {
      matches.push_back(entry.path().string());
    }
  }
  if (matches.empty()) return std::nullopt;
  std::sort(matches.begin(), matches.end());
  return matches.front();
}

// The libpython a Python extension module was built for, from the ABI tag in
// its file name ("image.cpython-313-x86_64-linux-gnu.so": libpython3.13.so.1.0).
std::optional<std::string> LibPythonFor(absl::string_view file) {
  constexpr absl::string_view kTag = ".cpython-3";
  size_t at = file.find(kTag);
  if (at == absl::string_view::npos) return std::nullopt;
  absl::string_view minor = file.substr(at + kTag.size());
  minor = minor.substr(0, minor.find_first_not_of("0123456789"));
  if (minor.empty()) return std::nullopt;
  return absl::StrCat("libpython3.", minor, ".so.1.0");
}

// dlopen(file, RTLD_NOW | RTLD_GLOBAL), or dlerror's reason.
absl::StatusOr<void*> OpenGlobal(const std::string& file) {
  dlerror();
  if (void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_GLOBAL)) return handle;
  const char* why = dlerror();
  return absl::InvalidArgumentError(why ? why : "dlopen failed");
}

// Opens an operator library. Some are Python extension modules that also
// register operators (torchvision 0.21's image library is one): they refer
// to Python's C API, which only an interpreter process provides. There,
// libpython is loaded first: its symbols resolve the library's references,
// and nothing of Python runs, since the module's init function is never
// called (docs/vision.md).
absl::StatusOr<void*> OpenLibrary(const std::string& canonical, const std::string& path) {
  absl::StatusOr<void*> opened = OpenGlobal(canonical);
  std::optional<std::string> libpython = LibPythonFor(fs::path(canonical).filename().string());
  if (!opened.ok() && libpython &&
      (absl::StrContains(opened.status().message(), "undefined symbol: Py") ||
       absl::StrContains(opened.status().message(), "undefined symbol: _Py"))) {
    if (absl::StatusOr<void*> python = OpenGlobal(*libpython); !python.ok()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "cannot load operator library '", path, "': it refers to Python's C API (",
          opened.status().message(), "), and ", *libpython,
          ", which would provide it, does not load (", python.status().message(),
          "): install Python's shared library (Debian: libpython3.X)"));
    }
    opened = OpenGlobal(canonical);
  }
  if (!opened.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("cannot load operator library '", path,
                                                   "': ", opened.status().message()));
  }
  return opened;
}

void AddPythonDirs(const fs::path& lib, std::vector<std::string>& dirs) {
  std::error_code error;
  std::vector<std::string> found;
  for (const auto& entry : fs::directory_iterator(lib, error)) {
    std::string name = entry.path().filename().string();
    if (!absl::StartsWith(name, "python3")) continue;
    for (const char* sub : {"dist-packages", "site-packages"}) {
      if (fs::is_directory(entry.path() / sub, error)) {
        found.push_back((entry.path() / sub).string());
      }
    }
  }
  std::sort(found.begin(), found.end());
  dirs.insert(dirs.end(), found.begin(), found.end());
}

}  // namespace

std::vector<std::string> LibrarySearchDirs() {
  std::vector<std::string> dirs;
  if (const char* only = std::getenv("TSB_LIBRARY_SEARCH_PATH")) {  // replaces the list
    for (absl::string_view dir : absl::StrSplit(only, ':', absl::SkipEmpty())) {
      dirs.emplace_back(dir);
    }
    return dirs;
  }
  dirs.push_back("/usr/lib/python3/dist-packages");  // Debian's python3-*
  AddPythonDirs("/usr/local/lib", dirs);
  AddPythonDirs("/usr/lib", dirs);
  for (const char* env : {"VIRTUAL_ENV", "CONDA_PREFIX"}) {
    if (const char* prefix = std::getenv(env)) AddPythonDirs(fs::path(prefix) / "lib", dirs);
  }
  if (const char* home = std::getenv("HOME")) {
    AddPythonDirs(fs::path(home) / ".local" / "lib", dirs);
  }
  // One entry per directory, first place kept.
  std::vector<std::string> unique;
  for (const std::string& dir : dirs) {
    if (std::find(unique.begin(), unique.end(), dir) == unique.end()) unique.push_back(dir);
  }
  return unique;
}

absl::StatusOr<std::vector<std::string>> FindLibraryByName(absl::string_view name) {
  const std::vector<std::string> dirs = LibrarySearchDirs();
  const std::vector<std::string> patterns = MainFilePatterns(name);
  for (const std::string& dir : dirs) {
    const fs::path package = fs::path(dir) / std::string(name);
    for (const std::string& pattern : patterns) {
      const fs::path file = package / pattern;
      std::optional<std::string> main = FindFile(file.parent_path(), file.filename().string());
      if (!main) continue;
      std::vector<std::string> files = {*main};
      for (const Companion& companion : kCompanions) {
        if (name != companion.library) continue;
        if (auto extra = FindFile(package, companion.file)) files.push_back(*extra);
      }
      return files;
    }
  }
  std::vector<std::string> looked;
  for (const std::string& dir : dirs) {
    for (const std::string& pattern : patterns) {
      looked.push_back(absl::StrCat(dir, "/", name, "/", pattern, "*.so"));
    }
  }
  return absl::NotFoundError(absl::StrCat(
      "cannot find the operator library '", name, "': looked for ", absl::StrJoin(looked, ", "),
      " (install it, e.g. Debian's python3-", name,
      ", set TSB_LIBRARY_SEARCH_PATH to the directory holding ", name,
      "/, or give the path of the .so file)"));
}

std::optional<std::string> LibraryForNamespace(absl::string_view ns) {
  // torchvision:: and image:: name torchvision even where it is not
  // installed: loading it then says where it looked.
  for (const Companion& companion : kCompanions) {
    if (ns == companion.ns || ns == companion.library) return std::string(companion.library);
  }
  // A namespace named after its library (torchaudio::): when that library is
  // found by name.
  if (FindLibraryByName(ns).ok()) return std::string(ns);
  return std::nullopt;
}

std::string MissingOperatorHint(absl::string_view op) {
  absl::string_view ns = op.substr(0, op.find("::"));
  // The advice ends with C's call; every other host says its own instead
  // (tsb::SayLoadLibrary, docs/hosts.md "Errors").
  if (std::optional<std::string> library = LibraryForNamespace(ns)) {
    return absl::StrCat("load the operator library '", *library, "' first (tsb_library_load(\"",
                        *library, "\", NULL))");
  }
  return absl::StrCat("load the library that registers the ", ns,
                      ":: operators first (tsb_library_load(\"PATH.so\", NULL))");
}

std::optional<absl::Status> MissingOperatorError(absl::string_view torch_message,
                                                 absl::string_view who) {
  constexpr absl::string_view kMarker = "Unknown builtin op: ";
  size_t at = torch_message.find(kMarker);
  if (at == absl::string_view::npos) return std::nullopt;
  absl::string_view rest = torch_message.substr(at + kMarker.size());
  size_t end = rest.find_first_of(". \n");
  absl::string_view op = rest.substr(0, end);
  if (!absl::StrContains(op, "::")) return std::nullopt;
  return absl::FailedPreconditionError(
      absl::StrCat(who, " calls the operator ", op,
                   ", which is not registered: ", MissingOperatorHint(op)));
}

LibraryLoader& LibraryLoader::Global() {
  static LibraryLoader* const loader = new LibraryLoader();  // never unloaded
  return *loader;
}

absl::StatusOr<int32_t> LibraryLoader::Load(const std::string& path_or_name) {
  if (path_or_name.empty()) {
    return absl::InvalidArgumentError("an operator library's path or name is empty");
  }
  std::vector<std::string> files;
  std::string name;
  if (IsPath(path_or_name)) {
    files.push_back(path_or_name);
  } else {
    absl::StatusOr<std::vector<std::string>> found = FindLibraryByName(path_or_name);
    if (!found.ok()) return found.status();
    files = *std::move(found);
    name = path_or_name;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  std::optional<int32_t> first;
  for (const std::string& file : files) {
    absl::StatusOr<int32_t> id = LoadFileLocked(file, name);
    if (!id.ok()) return id.status();
    if (!first) first = *id;
  }
  return *first;
}

absl::StatusOr<int32_t> LibraryLoader::LoadFileLocked(const std::string& path,
                                                      const std::string& name) {
  char resolved[PATH_MAX];
  if (realpath(path.c_str(), resolved) == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("cannot load operator library '", path, "': no such file"));
  }
  std::string canonical = resolved;
  int32_t count = Count();
  for (int32_t id = 0; id < count; ++id) {
    if (libraries_.Get(id)->path == canonical) return id;  // loading twice is a no-op
  }
  if (libraries_.Full()) return absl::ResourceExhaustedError("too many operator libraries");

  // A truncated file would fault inside dlopen (SIGBUS): checked first.
  absl::StatusOr<plugins::SharedObjectInfo> object = plugins::CheckSharedObject(canonical);
  if (!object.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("cannot load operator library '", path,
                                                   "': ", object.status().message()));
  }
  // A copy of a loaded library (the same build id) is that library: opening
  // it again would run its TORCH_LIBRARY a second time, and LibTorch throws
  // from that static initialiser, which cannot unwind through the dynamic
  // loader: the process would abort. A different library reusing a loaded
  // namespace still does (docs/reliability.md).
  for (int32_t id = 0; id < count && !object->build_id.empty(); ++id) {
    if (libraries_.Get(id)->build_id == object->build_id) return id;
  }
  std::set<std::string> before = RegisteredOperatorNames();
  absl::StatusOr<void*> opened = OpenLibrary(canonical, path);
  if (!opened.ok()) return opened.status();
  void* handle = *opened;
  // Never dlclose'd, even when refused: opening it ran its static
  // initialisers, and a plugin's may have registered operators and classes
  // with LibTorch, which keeps them (as plugin_loader.cc does for plugins).
  if (dlsym(handle, TSB_PLUGIN_ENTRY_SYMBOL) != nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot load operator library '", path, "': it is a tsbridge plugin (it exports ",
        TSB_PLUGIN_ENTRY_SYMBOL, "): load it with tsb_plugin_load (tsb --plugin, "
        "tsbridge.load_plugin)"));
  }
  auto record = std::make_unique<LoadedLibrary>();
  record->name = name.empty() ? fs::path(canonical).stem().string() : name;
  record->path = canonical;
  record->build_id = object->build_id;
  for (const std::string& op : RegisteredOperatorNames()) {
    if (before.count(op) == 0) record->operators.push_back(op);
  }
  for (const std::string& op : record->operators) record->operator_ptrs.push_back(op.c_str());
  const int32_t id = libraries_.Append(std::move(record));
  if (id < 0) return absl::ResourceExhaustedError("too many operator libraries");
  return id;
}

}  // namespace tsb::runtime
