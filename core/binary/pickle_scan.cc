#include "core/binary/pickle_scan.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "tsbridge/plugin/errors.hpp"

namespace tsb::binary {
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


// Which stack items hold which, to refuse a cycle before LibTorch's
// unpickler builds it. It builds whatever a program adds to a list, dict or
// object, a container into itself too (Python writes that for
// `a = []; a.append(a)`); when a later opcode then fails, the unpickler
// drops its stack and the cycle leaks (found by the pickle fuzzer's leak
// check). Every pushed item is a node and every addition an edge; the memo
// and DUP push a node again. An opcode whose result LibTorch makes from
// its arguments (REDUCE, TUPLE, ...) is taken to hold them all.
class Containment {
 public:
  explicit Containment(size_t budget) : budget_(budget) {}

  uint32_t Node() {
    held_by_any_.push_back(false);
    children_.emplace_back();
    seen_.push_back(0);
    return static_cast<uint32_t>(children_.size() - 1);
  }

  // `parent` now holds `child`: false if `child` reaches `parent` (or the
  // search's budget ran out: *exhausted). Pickles as Python and LibTorch
  // write them fill a container before anything holds it: no search.
  bool Hold(uint32_t parent, uint32_t child, bool* exhausted) {
    if (parent == child) return false;
    if (held_by_any_[parent] && Reaches(child, parent, exhausted)) return false;
    if (*exhausted) return false;
    children_[parent].push_back(child);
    held_by_any_[child] = true;
    return true;
  }

 private:
  bool Reaches(uint32_t from, uint32_t to, bool* exhausted) {
    ++generation_;
    std::vector<uint32_t> todo{from};
    seen_[from] = generation_;
    while (!todo.empty()) {
      const uint32_t n = todo.back();
      todo.pop_back();
      if (n == to) return true;
      for (uint32_t c : children_[n]) {
        if (budget_ == 0) {
          *exhausted = true;
          return false;
        }
        --budget_;
        if (seen_[c] != generation_) {
          seen_[c] = generation_;
          todo.push_back(c);
        }
      }
    }
    return false;
  }

  size_t budget_;  // edges a search may still follow, over the whole scan
  uint32_t generation_ = 0;
  std::vector<bool> held_by_any_;
  std::vector<std::vector<uint32_t>> children_;
  std::vector<uint32_t> seen_;  // == generation_: seen by the current search
};

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
  // Each stack item's node, and the memo's.
  Containment holds(8 * size + 4096);
  std::vector<uint32_t> nodes;
  absl::flat_hash_map<uint64_t, uint32_t> memo;
  uint64_t memo_size = 0;  // MEMOIZE's index: LibTorch's memo table grows to fit
  bool exhausted = false;
  auto hold = [&](size_t op_at, uint32_t parent, uint32_t child) -> absl::Status {
    if (holds.Hold(parent, child, &exhausted)) return absl::OkStatus();
    return Invalid(op_at,
                   exhausted ? "too many additions to held containers to check"
                             : "a container added into itself or into one it holds (a cycle)");
  };
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
    const size_t arg_at = at;
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
    // The memo index of PUT and GET (text), BINPUT, BINGET and their LONG forms.
    uint64_t memo_index = 0;
    if (op == 'p' || op == 'g') {
      if (!absl::SimpleAtoi(absl::string_view(data + arg_at, at - 1 - arg_at), &memo_index)) {
        return Invalid(op_at, "a memo index that is not a number");
      }
      if (memo_index >= size) return Invalid(op_at, "a memo index past the end");
    } else if (o.memo) {
      memo_index = ReadLe(p + arg_at, o.fixed);
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
      const std::vector<uint32_t> items(nodes.begin() + floor, nodes.end());
      uint32_t into = 0;  // the container below the MARK, or the new item
      if (o.marks == Op::kCollapseInto) into = nodes[floor - 1];
      if (o.pushes > 0) into = holds.Node();
      if (o.marks == Op::kCollapseInto || o.pushes > 0) {
        for (uint32_t item : items) TSB_RETURN_IF_ERROR(hold(op_at, into, item));
      }
      starts.resize(floor);
      nodes.resize(floor);
      if (o.pushes > 0) {
        starts.push_back(marks_at.back());
        nodes.push_back(into);
      }
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
      uint32_t popped[3];  // no opcode pops more
      std::copy(nodes.end() - o.pops, nodes.end(), popped);
      nodes.resize(nodes.size() - o.pops);
      switch (op) {
        case 'a': case 's': case 'b':  // APPEND SETITEM BUILD: the container stays
          for (size_t i = 1; i < o.pops; ++i) {
            TSB_RETURN_IF_ERROR(hold(op_at, popped[0], popped[i]));
          }
          nodes.push_back(popped[0]);
          break;
        case '2':  // DUP
          nodes.insert(nodes.end(), {popped[0], popped[0]});
          break;
        case 'p': case 'q': case 'r': case 0x94:  // PUT BINPUT LONG_BINPUT MEMOIZE
          if (op == 0x94) memo_index = memo_size;
          memo[memo_index] = popped[0];
          memo_size = std::max(memo_size, memo_index + 1);
          nodes.push_back(popped[0]);
          break;
        case 'g': case 'h': case 'j': {  // GET BINGET LONG_BINGET
          auto it = memo.find(memo_index);
          if (it == memo.end()) return Invalid(op_at, "a memo index never stored");
          nodes.push_back(it->second);
          break;
        }
        default:
          for (size_t i = 0; i < o.pushes; ++i) {
            const uint32_t made = holds.Node();
            for (size_t a = 0; a < o.pops; ++a) {
              TSB_RETURN_IF_ERROR(hold(op_at, made, popped[a]));
            }
            nodes.push_back(made);
          }
      }
    }
  }
  if (rewritten != nullptr && !ops_at.empty() && !framed) {
    std::sort(mark_at.begin(), mark_at.end());
    *rewritten = Rewrite(p, size, mark_at, ops_at);
  }
  return absl::OkStatus();
}

}  // namespace tsb::binary
