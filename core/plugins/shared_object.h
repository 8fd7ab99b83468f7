// Checks a shared library's ELF header and program headers before dlopen
// sees the file. glibc's dlopen maps a library's segments as its program
// headers describe them: a truncated file (a segment reaching past the end)
// faults inside dlopen with SIGBUS, which no status can report. So both
// loaders (plugins and operator libraries) ask this first, and a file of
// another class, byte order or machine gets a message saying so.
#ifndef TSBRIDGE_CORE_PLUGINS_SHARED_OBJECT_H_
#define TSBRIDGE_CORE_PLUGINS_SHARED_OBJECT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tsb::plugins {

struct SharedObjectInfo {
  std::string build_id;  // the GNU build id in hex; "" when the file has none
};

// The file's build id when it is a shared object this process could map;
// otherwise InvalidArgument with the reason ("file too short", "wrong ELF
// class: ELFCLASS32", "truncated: ..."). A file without the ELF magic passes
// through (dlopen's own "invalid ELF header" says it best).
absl::StatusOr<SharedObjectInfo> CheckSharedObject(const std::string& path);

// The libraries a shared object held in memory names as needed (its
// DT_NEEDED entries, in order): what a compiled model inside an AOTInductor
// package was linked against. Empty for bytes that are not a 64-bit
// little-endian ELF file, or whose dynamic section lies outside them.
std::vector<std::string> NeededLibraries(absl::string_view image);

}  // namespace tsb::plugins

#endif  // TSBRIDGE_CORE_PLUGINS_SHARED_OBJECT_H_
