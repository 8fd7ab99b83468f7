// Values that contain themselves, or nest deeper than a walk can follow.
//
// LibTorch builds both: its unpickler from a pickle that adds a list to
// itself (Python's pickle writes that for `a = []; a.append(a)`; found by
// the pickle fuzzer), and TorchScript code (`l.append(l)` on a
// `List[Any]`). Every recursive walk of such a value -- LibTorch's printer
// and pickler, a host's converter -- would run until the stack overflows,
// so the entry points that walk check first (docs/reliability.md).
#ifndef TSBRIDGE_CORE_VALUE_NESTING_H_
#define TSBRIDGE_CORE_VALUE_NESTING_H_

#include <ATen/core/ivalue.h>

#include "absl/status/status.h"

namespace tsb {

// Containers nested deeper than this are refused where a value is walked;
// the JSON reader and writer use it too (text::kMaxDepth), so whatever
// passes can be written.
inline constexpr int kMaxValueDepth = 512;

// OK unless `value` reaches a list, dict, tuple or object that encloses it
// (the message names both paths) or nests containers deeper than
// kMaxValueDepth (the message names the path's start). Shared parts are
// walked once. Iterative, so any value is safe to check.
absl::Status CheckNesting(const c10::IValue& value);

// OK unless a List, Tuple or Dict nests inside `value` (itself counted) more
// than `room` deep; the error's path leads to the first one too deep. What
// every builder asks of its items (room kMaxValueDepth - 1), so that no
// value a host builds is one a walk refuses later. A container whose
// element types hold no container is not walked.
absl::Status CheckDepth(const c10::IValue& value, int room);

// Empties every list and dict and resets every object attribute reachable
// from `value`, which reference counting alone never frees when the value
// contains itself. Only for a value no one else holds.
void BreakCycles(const c10::IValue& value);

// CheckNesting, and every tensor reachable from `value` inside its storage
// (core/value/tensor_storage.h; the message names the tensor's path). For
// values LibTorch built from a file, before anything reads them.
absl::Status CheckLoaded(const c10::IValue& value);

}  // namespace tsb

#endif  // TSBRIDGE_CORE_VALUE_NESTING_H_
