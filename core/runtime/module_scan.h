// Checks a module archive before LibTorch 1.13's importer reads it: the
// inputs found by tests/reliability/hostile and tests/fuzz that make the
// importer allocate gigabytes or read freed memory are refused here with a
// status instead.
#ifndef TSBRIDGE_CORE_RUNTIME_MODULE_SCAN_H_
#define TSBRIDGE_CORE_RUNTIME_MODULE_SCAN_H_

#include <cstddef>
#include <functional>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace tsb::runtime {

// OK when every pickle of the archive (data.pkl, constants.pkl, the code's
// .debug_pkl) passes ScanPickle, every .debug_pkl holds the debug ranges
// LibTorch's error reports read, and every code/ source parses with no class
// body assignment the importer would read as a typed constant without a
// type. Throws what PyTorchStreamReader throws for a file that is not an
// archive.
// `on_code`, when given, sees each code/ source first (the runtime offers it
// to deferred plugins, whose operators the importer will look up).
absl::Status ScanModuleArchive(
    const char* path,
    const std::function<absl::Status(absl::string_view code)>& on_code = nullptr);
// The same for an archive in memory (tsb_module_read).
absl::Status ScanModuleArchive(
    const char* data, size_t size,
    const std::function<absl::Status(absl::string_view code)>& on_code = nullptr);

}  // namespace tsb::runtime

#endif  // TSBRIDGE_CORE_RUNTIME_MODULE_SCAN_H_
