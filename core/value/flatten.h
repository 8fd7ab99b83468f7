// A whole value in one boundary call (tsb_any_flatten, tsbridge.h): its
// Lists, Tuples, NamedTuples and Dicts opened in pre-order, so that a host
// walks a record or a dict of lists with no handle per container or key.
#ifndef TSBRIDGE_CORE_VALUE_FLATTEN_H_
#define TSBRIDGE_CORE_VALUE_FLATTEN_H_

#include <cstddef>

#include <ATen/core/ivalue.h>

#include "absl/status/status.h"
#include "tsbridge/plugin/kind_codec.hpp"
#include "tsbridge/tsbridge.h"

namespace tsb {

// Writes `value` (of `type`) into out[0..capacity) as tsb_any_flatten
// documents; *needed is the number of entries it takes. When capacity is
// too small nothing stays written (every reference taken is released) and
// the status is OK: the caller compares *needed with capacity. A failure
// also leaves nothing written.
// With `borrow_tensors` (tsb_any_flatten_borrowed), a tensor leaf is a
// borrowed entry naming the tensor `value` holds, not a new reference.
absl::Status FlattenValue(const c10::IValue& value, const TypeInfo& type, tsb_any* out,
                          size_t capacity, size_t* needed, bool borrow_tensors = false);

}  // namespace tsb

#endif  // TSBRIDGE_CORE_VALUE_FLATTEN_H_
