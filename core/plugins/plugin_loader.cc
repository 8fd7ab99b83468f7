#include "core/plugins/plugin_loader.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/compat/torch_compat.h"
#include "core/errors/status.h"
#include "core/plugins/registration.h"
#include "core/plugins/shared_object.h"
#include "tsbridge/plugin/internal/platform_tag.hpp"
#include "tsbridge/plugin.h"

namespace tsb::plugins {
namespace {

absl::Status LoadError(const std::string& path, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("cannot load plugin '", path, "': ", why));
}

// A platform tag's parts as said to a user, in the tag's order (compiler,
// standard library, string ABI, LibTorch, SDK ABI): "LibTorch 2.6"; empty
// when the tag does not have the shape of one.
std::vector<std::string> TagParts(absl::string_view tag) {
  std::vector<std::string> parts = absl::StrSplit(tag, '/');
  if (parts.size() == 4) parts.push_back("sdk=1");  // an SDK before ABI 2 wrote none
  constexpr const char* kKeys[] = {"", "", "cxx11abi=", "torch=", "sdk="};
  constexpr const char* kSaid[] = {"the compiler family ", "the C++ library ",
                                   "_GLIBCXX_USE_CXX11_ABI=", "LibTorch ",
                                   "the tsbridge SDK ABI "};
  if (parts.size() != 5) return {};
  for (size_t i = 0; i < parts.size(); ++i) {
    absl::string_view part = parts[i];
    if (!absl::ConsumePrefix(&part, kKeys[i])) return {};
    parts[i] = absl::StrCat(kSaid[i], part);
  }
  return parts;
}

// Why a plugin of platform `tag` is refused, naming what differs on both
// sides: "built against LibTorch 2.6, this tsbridge against LibTorch 1.13
// (platform \"...\", this tsbridge's \"...\"): rebuild the plugin ...".
std::string PlatformClash(const char* tag) {
  const std::vector<std::string> theirs = TagParts(tag), ours = TagParts(TSB_PLATFORM_TAG);
  std::vector<std::string> plugin_side, core_side;
  for (size_t i = 0; i < theirs.size() && i < ours.size(); ++i) {
    if (theirs[i] == ours[i]) continue;
    plugin_side.push_back(theirs[i]);
    core_side.push_back(ours[i]);
  }
  if (plugin_side.empty()) {
    return absl::StrCat("built for platform \"", tag, "\", this tsbridge is \"",
                        TSB_PLATFORM_TAG, "\"");
  }
  return absl::StrCat("built against ", absl::StrJoin(plugin_side, " and "),
                      ", this tsbridge against ", absl::StrJoin(core_side, " and "),
                      " (platform \"", tag, "\", this tsbridge's \"", TSB_PLATFORM_TAG,
                      "\"): rebuild the plugin against this tsbridge and LibTorch ",
                      compat::LibTorchRelease());
}

// The descriptor checks, made before any plugin code but the entry runs.
absl::Status CheckDescriptor(const std::string& path, const tsb_plugin_descriptor* d) {
  if (d == nullptr) return LoadError(path, "tsb_plugin_v1() returned NULL");
  if (d->abi_major != TSB_PLUGIN_ABI_MAJOR || d->abi_minor > TSB_PLUGIN_ABI_MINOR) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot load plugin '", path, "': built for plugin ABI ", d->abi_major, ".",
        d->abi_minor, ", this tsbridge speaks ", TSB_PLUGIN_ABI_MAJOR, ".",
        TSB_PLUGIN_ABI_MINOR, d->abi_major == TSB_PLUGIN_ABI_MAJOR ? " (older minors only)" : ""));
  }
  const char* tag = d->platform_tag ? d->platform_tag : "(null)";
  const absl::string_view base = TSB_PLATFORM_BASE_TAG;
  if (std::string(tag) != TSB_PLATFORM_TAG && absl::StartsWith(tag, base) &&
      (tag[base.size()] == '\0' || absl::StartsWith(tag + base.size(), "/sdk="))) {
    // The same compiler, library and LibTorch: only the SDK differs.
    const char* sdk = tag[base.size()] == '\0' ? "1" : tag + base.size() + 5;
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot load plugin '", path, "': built against the tsbridge SDK ABI ", sdk,
        " (the C++ types shared with plugins: KindCodec, TypeInfo), this tsbridge "
        "needs SDK ABI ", TSB_SDK_ABI_VERSION, ": rebuild the plugin with this tsbridge's SDK"));
  }
  if (std::string(tag) != TSB_PLATFORM_TAG) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot load plugin '", path, "': ", PlatformClash(tag)));
  }
  if (d->name == nullptr || *d->name == '\0' || d->version == nullptr ||
      d->register_plugin == nullptr) {
    return LoadError(path, "its descriptor lacks a name, a version or a register function");
  }
  return absl::OkStatus();
}

}  // namespace

PluginLoader& PluginLoader::Global() {
  static PluginLoader* const loader = new PluginLoader();  // plugins are never unloaded
  return *loader;
}

absl::StatusOr<int32_t> PluginLoader::Load(const std::string& path) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  return LoadLocked(path);
}

int32_t PluginLoader::LoadedId(const std::string& canonical) const noexcept {
  for (int32_t id = 0; id < Count(); ++id) {
    if (plugins_.Get(id)->path == canonical) return id;
  }
  return -1;
}

bool PluginLoader::IsLoadedOrLoading(const std::string& path) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  char resolved[PATH_MAX];
  if (realpath(path.c_str(), resolved) == nullptr) return false;
  return std::find(loading_.begin(), loading_.end(), resolved) != loading_.end() ||
         LoadedId(resolved) >= 0;
}

absl::StatusOr<int32_t> PluginLoader::LoadLocked(const std::string& path) {
  char resolved[PATH_MAX];
  if (realpath(path.c_str(), resolved) == nullptr) {
    return absl::NotFoundError(absl::StrCat("cannot load plugin '", path, "': no such file"));
  }
  std::string canonical = resolved;
  int32_t count = Count();
  if (int32_t id = LoadedId(canonical); id >= 0) return id;  // loading twice is a no-op
  if (plugins_.Full()) return absl::ResourceExhaustedError("too many plugins");
  // A plugin whose registration needs itself (through a deferred-plugin
  // lookup on this thread) must not register twice.
  if (std::find(loading_.begin(), loading_.end(), canonical) != loading_.end()) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot load plugin '", path, "' while it is loading"));
  }
  loading_.push_back(canonical);
  struct Done {
    std::vector<std::string>& loading;
    ~Done() { loading.pop_back(); }
  } done{loading_};

  // A truncated file would fault inside dlopen (SIGBUS): checked first.
  if (absl::StatusOr<SharedObjectInfo> object = CheckSharedObject(canonical); !object.ok()) {
    return LoadError(path, object.status().message());
  }
  dlerror();
  // Never dlclose'd once open, even when refused: its static initialisers may
  // have registered operators or classes with LibTorch (TORCH_LIBRARY,
  // class_<>), which LibTorch keeps; unmapped, they crash the process at exit.
  // A refused plugin's tsbridge registrations are undone, its code stays.
  void* library = dlopen(canonical.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) return LoadError(path, dlerror());
  auto entry = reinterpret_cast<tsb_plugin_entry_v1>(dlsym(library, TSB_PLUGIN_ENTRY_SYMBOL));
  if (entry == nullptr) {
    return LoadError(path, "it does not export " TSB_PLUGIN_ENTRY_SYMBOL
                           ", so it is not a tsbridge plugin");
  }
  const tsb_plugin_descriptor* descriptor = entry();
  TSB_RETURN_IF_ERROR(CheckDescriptor(path, descriptor));
  std::string name = descriptor->name;
  for (int32_t id = 0; id < count; ++id) {
    const LoadedPlugin* loaded = plugins_.Get(id);
    if (loaded->name == name) {
      return absl::AlreadyExistsError(absl::StrCat("cannot load plugin '", path,
                                                   "': a plugin named '", name,
                                                   "' is already loaded from ", loaded->path));
    }
  }

  Registration registration(name);
  tsb_registrar table = registration.Table();
  // A plugin written without TSB_PLUGIN may throw.
  bool threw = true;
  absl::Status registered = CatchAll([&] {
    absl::Status status = TakeStatus(descriptor->register_plugin(&table));
    threw = false;
    return status;
  });
  if (threw) registered = absl::Status(registered.code(), absl::StrCat("register threw: ", registered.message()));
  if (!registered.ok()) {
    return absl::Status(registered.code(), absl::StrCat("cannot load plugin '", path, "': ",
                                                        registered.message()));
  }

  auto record = std::make_unique<LoadedPlugin>();
  record->name = name;
  record->version = descriptor->version;
  record->path = canonical;
  record->platform_tag = descriptor->platform_tag;
  TSB_RETURN_IF_ERROR(registration.Commit(*record));
  for (const auto& s : record->kinds) record->kind_ptrs.push_back(s.c_str());
  for (const auto& s : record->types) record->type_ptrs.push_back(s.c_str());
  for (const auto& s : record->functions) record->function_ptrs.push_back(s.c_str());
  // Read again: a deferred plugin this one needed may have taken a slot.
  const int32_t id = plugins_.Append(std::move(record));
  if (id < 0) return absl::ResourceExhaustedError("too many plugins");
  return id;
}

absl::Status PluginLoader::LoadDirectory(const std::string& dir) {
  std::error_code error;
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    if (entry.path().extension() == ".so") files.push_back(entry.path().string());
  }
  if (error) {
    return absl::NotFoundError(absl::StrCat("cannot read plugin directory '", dir, "': ",
                                            error.message()));
  }
  std::sort(files.begin(), files.end());
  for (const std::string& file : files) TSB_RETURN_IF_ERROR(Load(file).status());
  return absl::OkStatus();
}

const std::string& BundledPluginDir() {
  static const std::string* const dir = [] {
    Dl_info info{};
    std::string library = dladdr(reinterpret_cast<void*>(&BundledPluginDir), &info) &&
                                  info.dli_fname != nullptr
                              ? info.dli_fname
                              : "";
    auto path = std::filesystem::path(library).parent_path() / "tsbridge" / "plugins";
    return new std::string(path.string());
  }();
  return *dir;
}

}  // namespace tsb::plugins
