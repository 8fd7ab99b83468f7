// Checks a pickle program before LibTorch 1.13's unpickler runs it. That
// unpickler sizes its memo table by the index a PUT names and its strings by
// the length an opcode claims, before reading them, so a few bytes could make
// it allocate gigabytes; and it pops its stack without checking, so TUPLE3 on
// one item reads out of bounds. Both found by tests/fuzz/pickle_fuzzer.cc.
#ifndef TSBRIDGE_CORE_BINARY_PICKLE_SCAN_H_
#define TSBRIDGE_CORE_BINARY_PICKLE_SCAN_H_

#include <cstddef>
#include <string>

#include "absl/status/status.h"

namespace tsb::binary {

// OK when every length fits in the bytes left, every memo index is smaller
// than the program (a pickler numbers its memo entries from 0, one PUT at a
// time), and no opcode pops more than the stack holds above its top MARK
// (CPython's rule), DICT and SETITEMS have pairs, every GET names a memo
// entry stored before, and nothing is added into a container it is inside
// (a cycle, which LibTorch's unpickler would build and, if a later opcode
// failed, leak). Opcodes it does not know end the scan: LibTorch rejects
// them itself.
//
// LibTorch 1.13's unpickler also lacks APPEND and SETITEM, which Python's
// pickler writes for a list or dict of exactly one item (torch.save([x])),
// while it reads their many-item forms. With `rewritten` non-null, a
// program that uses either is rewritten there into the many-item form (a
// MARK before the item, APPENDS or SETITEMS for the opcode); *rewritten
// stays empty when nothing needs it. Found by the differential tests
// (tests/reliability/python/test_differential.py).
absl::Status ScanPickle(const char* data, size_t size, std::string* rewritten = nullptr);

}  // namespace tsb::binary

#endif  // TSBRIDGE_CORE_BINARY_PICKLE_SCAN_H_
