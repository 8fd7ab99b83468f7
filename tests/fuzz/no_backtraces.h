// Fuzz targets that make LibTorch throw on most inputs call this once.
//
// LibTorch 1.13's c10::Error symbolizes a C++ backtrace on every throw
// (backtrace_symbols: a dladdr walk of the ~300 libraries Debian's LibTorch
// loads), about 1 ms each: 60 % of module_load's time and 23-33 % of
// json, type_string and host_conversion's (perf, 2026-11-26).
// tsbridge only carries that text in a TorchError's payload; the harnesses
// never read it, so an empty backtrace changes what they test nowhere.
#ifndef TSBRIDGE_TESTS_FUZZ_NO_BACKTRACES_H_
#define TSBRIDGE_TESTS_FUZZ_NO_BACKTRACES_H_

#include <string>

#include <c10/util/Logging.h>

namespace tsb::fuzz {

inline void DropLibTorchBacktraces() {
  static const bool done = [] {
    c10::SetStackTraceFetcher([] { return std::string(); });
    return true;
  }();
  (void)done;
}

}  // namespace tsb::fuzz

#endif  // TSBRIDGE_TESTS_FUZZ_NO_BACKTRACES_H_
