// Bounds a pickle program before LibTorch's unpickler runs it: the
// unpickler sizes its memo table by the index a PUT names and its strings
// by the length an opcode claims, before reading them, so a few bytes could
// make it allocate gigabytes (found by tests/fuzz/pickle_fuzzer.cc).
#ifndef TSBRIDGE_CORE_BINARY_PICKLE_SCAN_H_
#define TSBRIDGE_CORE_BINARY_PICKLE_SCAN_H_

#include <cstddef>

#include "absl/status/status.h"

namespace tsb {

// OK when every length fits in the bytes left and every memo index is
// smaller than the program (a pickler numbers its memo entries from 0, one
// PUT at a time). Opcodes it does not know end the scan: LibTorch rejects
// them itself.
absl::Status ScanPickle(const char* data, size_t size);

}  // namespace tsb

#endif  // TSBRIDGE_CORE_BINARY_PICKLE_SCAN_H_
