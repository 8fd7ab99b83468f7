#include "core/binary/pickle_scan.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

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

// What an opcode does to the unpickler's stack, as CPython checks it: it
// needs `pops` items above the top mark, then leaves `pushes` in their place.
// A mark opcode instead collapses everything above the top mark into
// `pushes` items (and APPENDS-like ones need the container below the mark).
struct Op {
  size_t fixed = 0;    // argument bytes
  size_t len_of = 0;   // bytes of a length prefix, then that many bytes
  bool memo = false;   // the argument is a memo index
  int lines = 0;       // newline-terminated arguments
  size_t pops = 0, pushes = 1;
  enum { kNone, kMark, kCollapse, kCollapseInto } marks = kNone;
};

// false for an opcode this scan does not know.
bool Describe(unsigned char op, Op& o) {
  switch (op) {
    case 0x80: case 0x95: o.fixed = op == 0x80 ? 1 : 8; o.pushes = 0; return true;  // PROTO FRAME
    case 'K': case 0x82: o.fixed = 1; return true;                    // BININT1 EXT1
    case 'M': case 0x83: o.fixed = 2; return true;                    // BININT2 EXT2
    case 'J': case 0x84: o.fixed = 4; return true;                    // BININT EXT4
    case 'G': o.fixed = 8; return true;                               // BINFLOAT
    case 'h': o.fixed = 1; o.memo = true; return true;                // BINGET
    case 'j': o.fixed = 4; o.memo = true; return true;                // LONG_BINGET
    case 'q': case 'r':                                               // BINPUT LONG_BINPUT
      o.fixed = op == 'q' ? 1 : 4; o.memo = true; o.pops = 1; return true;
    case 0x94: o.pops = 1; return true;                               // MEMOIZE
    case 0x8a: case 'U': case 'C': case 0x8c: o.len_of = 1; return true;
    case 0x8b: case 'T': case 'B': case 'X': o.len_of = 4; return true;
    case 0x8d: case 0x8e: o.len_of = 8; return true;                  // BINUNICODE8 BINBYTES8
    case 'c': o.lines = 2; return true;                               // GLOBAL
    case 'I': case 'L': case 'F': case 'S': case 'V': case 'g': case 'P': o.lines = 1; return true;
    case 'p': o.lines = 1; o.pops = 1; return true;                   // PUT
    case 'N': case 0x88: case 0x89: case ']': case ')': case '}': case 0x8f: return true;
    case '0': o.pops = 1; o.pushes = 0; return true;                  // POP
    case '2': o.pops = 1; o.pushes = 2; return true;                  // DUP
    case 'Q': case 0x85: o.pops = 1; return true;                     // BINPERSID TUPLE1
    case 0x86: case 'a': case 'b': case 'R': case 0x81: case 0x93:    // TUPLE2 APPEND BUILD
      o.pops = 2; return true;                                        // REDUCE NEWOBJ STACK_GLOBAL
    case 0x87: case 's': case 0x92: o.pops = 3; return true;        // TUPLE3 SETITEM NEWOBJ_EX
    case '(': o.marks = Op::kMark; o.pushes = 0; return true;         // MARK
    case '1': o.marks = Op::kCollapse; o.pushes = 0; return true;     // POP_MARK
    case 't': case 'l': case 'd': case 0x91: case 'o':                // TUPLE LIST DICT
      o.marks = Op::kCollapse; return true;                           // FROZENSET OBJ
    case 'i': o.marks = Op::kCollapse; o.lines = 2; return true;      // INST
    case 'e': case 'u': case 0x90: o.marks = Op::kCollapseInto; o.pushes = 0; return true;
    default: return false;
  }
}


// APPEND and SETITEM as APPENDS and SETITEMS: a MARK inserted where the
// item (the key) begins. No opcode of protocol 2 holds an offset, so
// inserting bytes keeps the program valid; a FRAME (protocol 4) would not.
std::string Rewrite(const unsigned char* p, size_t size, const std::vector<size_t>& mark_at,
                    const std::vector<size_t>& ops_at) {
  std::string out;
  out.reserve(size + mark_at.size());
  size_t m = 0, o = 0;
  for (size_t at = 0; at < size; ++at) {
    for (; m < mark_at.size() && mark_at[m] == at; ++m) out.push_back('(');
    if (o < ops_at.size() && ops_at[o] == at) {
      out.push_back(p[at] == 'a' ? 'e' : 'u');
      ++o;
    } else {
      out.push_back(static_cast<char>(p[at]));
    }
  }
  return out;
}

}  // namespace

absl::Status ScanPickle(const char* data, size_t size, std::string* rewritten) {
  const auto* p = reinterpret_cast<const unsigned char*>(data);
  size_t at = 0;
  // Where the opcodes that built each stack item begin; the depth at each MARK.
  std::vector<size_t> starts, marks, marks_at;
  std::vector<size_t> mark_at, ops_at;  // for the rewrite: insert a MARK, change an op
  bool framed = false;
  while (at < size) {
    const size_t op_at = at;
    const unsigned char op = p[at++];
    if (op == '.') {  // STOP: the result is on the stack
      if (starts.empty()) return Invalid(op_at, "STOP with an empty stack");
      break;
    }
    Op o;
    if (!Describe(op, o)) break;  // unknown: LibTorch's error to give
    framed = framed || op == 0x95;
    if (o.fixed + o.len_of > size - at) return Invalid(op_at, "an opcode cut short");
    if (o.memo && ReadLe(p + at, o.fixed) >= size) {
      return Invalid(op_at, "a memo index past the end");
    }
    at += o.fixed;
    if (o.len_of > 0) {
      const uint64_t n = ReadLe(p + at, o.len_of);
      at += o.len_of;
      if (n > size - at) return Invalid(op_at, "a length past the end");
      at += n;
    }
    for (int lines = o.lines; lines > 0; --lines) {
      const void* nl = std::memchr(p + at, '\n', size - at);
      if (nl == nullptr) return Invalid(op_at, "a line without its end");
      at = static_cast<const unsigned char*>(nl) - p + 1;
    }
    // The stack, which LibTorch's unpickler pops without checking.
    const size_t floor = marks.empty() ? 0 : marks.back();
    if (o.marks == Op::kMark) {
      marks.push_back(starts.size());
      marks_at.push_back(op_at);
    } else if (o.marks != Op::kNone) {
      if (marks.empty()) return Invalid(op_at, "an opcode with no MARK before it");
      if (o.marks == Op::kCollapseInto && floor == 0) {
        return Invalid(op_at, "items to add with no container below the MARK");
      }
      // LibTorch reads DICT's and SETITEMS's items in pairs without
      // checking: an odd count copies a dead value from past the stack's end.
      if ((op == 'd' || op == 'u') && (starts.size() - floor) % 2 != 0) {
        return Invalid(op_at, "a key without its value");
      }
      starts.resize(floor);
      if (o.pushes > 0) starts.push_back(marks_at.back());
      marks.pop_back();
      marks_at.pop_back();
    } else {
      if (starts.size() - floor < o.pops) return Invalid(op_at, "a stack underflow");
      if (op == 'a' || op == 's') {  // the item (the key) begins where a MARK goes
        mark_at.push_back(starts[starts.size() - (op == 'a' ? 1 : 2)]);
        ops_at.push_back(op_at);
      }
      size_t start = op_at;
      for (size_t i = 0; i < o.pops; ++i) {
        start = std::min(start, starts.back());
        starts.pop_back();
      }
      for (size_t i = 0; i < o.pushes; ++i) starts.push_back(i == 0 ? start : op_at);
    }
  }
  if (rewritten != nullptr && !ops_at.empty() && !framed) {
    std::sort(mark_at.begin(), mark_at.end());
    *rewritten = Rewrite(p, size, mark_at, ops_at);
  }
  return absl::OkStatus();
}

}  // namespace tsb
