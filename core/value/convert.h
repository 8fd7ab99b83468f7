// Conversion helpers only the core (and its tests) use; what a plugin's
// kind codec needs stays in tsbridge/plugin/kind_codec.hpp.
#ifndef TSBRIDGE_CORE_VALUE_CONVERT_H_
#define TSBRIDGE_CORE_VALUE_CONVERT_H_

#include <string>

#include <ATen/core/ivalue.h>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tsbridge/plugin/kind_codec.hpp"
#include "tsbridge/tsbridge.h"

namespace tsb {

// A boundary value -> IValue. Checks that the value is well-formed, nothing
// more: type checks are Coerce's job.
absl::StatusOr<c10::IValue> ToIValue(const tsb_any& value);

// The fixed type index of a leaf value (None, bool, int, uint, float,
// complex, str, Tensor, Device), as TypeOfValue finds it; TSB_TYPE_INVALID
// for any other value. A dtype is an int here: its IValue is one.
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

// An inline None, bool, int, uint or float, as their codecs decode it
// (scalar_codecs.cc), with no virtual call: builders decode one per item.
// False for any other type index, and for a uint on a LibTorch without
// UInt (its codec's Decode says why); the caller has checked the flags.
bool DecodeInlineLeaf(const tsb_any& value, c10::IValue* out);

// An int IValue at the boundary: TSB_TYPE_INT, or TSB_TYPE_UINT (u.u) for
// a UInt, an int above INT64_MAX (LibTorch 2.9 and newer), never wrapped.
void EncodeInt(const c10::IValue& value, tsb_any* out);

// The IValue of the int `u`; above INT64_MAX, on a LibTorch without UInt,
// UNIMPLEMENTED: "expected <expected>, got <found>, which needs LibTorch
// 2.9 or newer (...)".
absl::StatusOr<c10::IValue> UIntValue(uint64_t u, absl::string_view expected,
                                      absl::string_view found);

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
