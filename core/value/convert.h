// Conversion helpers only the core (and its tests) use; what a plugin's
// kind codec needs stays in tsbridge/plugin/kind_codec.hpp.
#ifndef TSBRIDGE_CORE_VALUE_CONVERT_H_
#define TSBRIDGE_CORE_VALUE_CONVERT_H_

#include <string>

#include <ATen/core/ivalue.h>

#include "absl/status/statusor.h"
#include "tsbridge/plugin/kind_codec.hpp"
#include "tsbridge/tsbridge.h"

namespace tsb {

// A boundary value -> IValue. Checks that the value is well-formed, nothing
// more: type checks are Coerce's job.
absl::StatusOr<c10::IValue> ToIValue(const tsb_any& value);

// The fixed type index of a leaf value (None, bool, int, float, complex,
// str, Tensor, Device), as TypeOfValue finds it; TSB_TYPE_INVALID for any
// other value. A dtype is an int here: its IValue is one.
int32_t LeafTypeIndex(const c10::IValue& value);

// A decoded boundary value and the type it carries at the boundary (a dtype
// stays a dtype, though its IValue is an int): one lookup, not two.
struct TypedValue {
  c10::IValue value;
  const TypeInfo* type = nullptr;
};
absl::StatusOr<TypedValue> Decode(const tsb_any& value);

// The same checks as Decode, without a copy: a handle's own IValue is
// borrowed (valid while the caller's reference is); an inline value is
// decoded into `scratch`.
struct BorrowedValue {
  const c10::IValue* value = nullptr;
  const TypeInfo* type = nullptr;
  c10::IValue scratch;
};
absl::Status Borrow(const tsb_any& value, BorrowedValue* out);

// An inline None, bool, int or float, as their codecs decode it
// (scalar_codecs.cc), with no virtual call: builders decode one per item.
// False for any other type index; the caller has checked the flags.
bool DecodeInlineLeaf(const tsb_any& value, c10::IValue* out);

// Writes an inline boundary value (no handle).
inline void SetInline(int32_t type_index, int64_t payload, tsb_any* out) {
  out->type_index = type_index;
  out->flags = 0;
  out->u.i = payload;
}

// The path segment of a dict key: key "b", key 3, key Tensor float32 [2].
std::string KeySegmentOf(const c10::IValue& key);

}  // namespace tsb

#endif  // TSBRIDGE_CORE_VALUE_CONVERT_H_
