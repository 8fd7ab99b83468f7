#include "core/binary/pickle_scan.h"

#include <cstdint>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace tsb {
namespace {

// Little-endian unsigned integer of `n` bytes at `p`.
uint64_t ReadLe(const unsigned char* p, size_t n) {
  uint64_t v = 0;
  for (size_t i = n; i-- > 0;) v = (v << 8) | p[i];
  return v;
}

absl::Status Invalid(size_t at, const char* what) {
  return absl::InvalidArgumentError(
      absl::StrCat("not a pickle LibTorch can read: ", what, " at byte ", at));
}

}  // namespace

absl::Status ScanPickle(const char* data, size_t size) {
  const auto* p = reinterpret_cast<const unsigned char*>(data);
  size_t at = 0;
  while (at < size) {
    const size_t op_at = at;
    const unsigned char op = p[at++];
    const size_t left = size - at;
    size_t fixed = 0;    // argument bytes
    size_t len_of = 0;   // bytes of a length prefix, then that many bytes
    bool memo = false;   // the argument is a memo index
    int lines = 0;       // newline-terminated arguments
    switch (op) {
      case 0x80: case 'K': case 0x82: fixed = 1; break;  // PROTO BININT1 EXT1
      case 'M': case 0x83: fixed = 2; break;              // BININT2 EXT2
      case 'J': case 0x84: fixed = 4; break;              // BININT EXT4
      case 'G': case 0x95: fixed = 8; break;              // BINFLOAT FRAME
      case 'h': case 'q': fixed = 1; memo = true; break;  // BINGET BINPUT
      case 'j': case 'r': fixed = 4; memo = true; break;  // LONG_BINGET LONG_BINPUT
      case 0x8a: case 'U': case 'C': case 0x8c: len_of = 1; break;
      case 0x8b: case 'T': case 'B': case 'X': len_of = 4; break;
      case 0x8d: case 0x8e: len_of = 8; break;            // BINUNICODE8 BINBYTES8
      case 'c': case 'i': lines = 2; break;               // GLOBAL INST
      case 'I': case 'L': case 'F': case 'S': case 'V': case 'g': case 'p': case 'P':
        lines = 1;
        break;
      case '.': return absl::OkStatus();                  // STOP
      case '(': case '0': case '1': case '2': case 'N': case 'Q': case 'R': case 'a':
      case 'b': case 'd': case '}': case 'e': case 'l': case ']': case 'o': case 's':
      case 't': case ')': case 'u': case 0x81: case 0x85: case 0x86: case 0x87:
      case 0x88: case 0x89: case 0x8f: case 0x90: case 0x91: case 0x92: case 0x93:
      case 0x94:
        break;
      default: return absl::OkStatus();  // unknown: LibTorch's error to give
    }
    if (fixed + len_of > left) return Invalid(op_at, "an opcode cut short");
    if (memo && ReadLe(p + at, fixed) >= size) return Invalid(op_at, "a memo index past the end");
    at += fixed;
    if (len_of > 0) {
      const uint64_t n = ReadLe(p + at, len_of);
      at += len_of;
      if (n > size - at) return Invalid(op_at, "a length past the end");
      at += n;
    }
    for (; lines > 0; --lines) {
      const void* nl = std::memchr(p + at, '\n', size - at);
      if (nl == nullptr) return Invalid(op_at, "a line without its end");
      at = static_cast<const unsigned char*>(nl) - p + 1;
    }
  }
  return absl::OkStatus();
}

}  // namespace tsb
