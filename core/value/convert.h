// Generic, type-directed conversion between boundary values and IValues.
// Each function dispatches to the codec of the type involved.
#ifndef TSBRIDGE_CORE_VALUE_CONVERT_H_
#define TSBRIDGE_CORE_VALUE_CONVERT_H_

#include <string>

#include <ATen/core/ivalue.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/types/type_info.h"
#include "tsbridge/tsbridge.h"

namespace tsb {

// The registered type at `index`, or a NOT_FOUND status naming the index.
absl::StatusOr<const TypeInfo*> FindType(int32_t index);

// The type a value carries at run time (List[int], not Optional[List[int]]).
absl::StatusOr<const TypeInfo*> TypeOfValue(const c10::IValue& value);

// A boundary value -> IValue. Checks that the value is well-formed, nothing
// more: type checks are Coerce's job.
absl::StatusOr<c10::IValue> ToIValue(const tsb_any& value);

// IValue -> boundary value (a new reference in *out). `static_type` is the
// type the context promises (a List's element type, a schema's return
// type); an abstract one (Optional, Union, Any, Scalar) resolves to the
// value's own type.
absl::Status ToBoundary(c10::IValue value, const TypeInfo& static_type,
                        tsb_any* out);
absl::Status ToBoundary(c10::IValue value, tsb_any* out);

// `value` converted to `expected`, checked all the way down.
absl::StatusOr<c10::IValue> CoerceTo(const c10::IValue& value,
                                     const TypeInfo& expected);

// "str \"x\"", "int 3", "List[int] of length 3": what an error says it found.
std::string DescribeValue(const c10::IValue& value);
// "expected int, got str \"x\"" as a type error.
absl::Status Mismatch(const TypeInfo& expected, const c10::IValue& found);

}  // namespace tsb

#endif  // TSBRIDGE_CORE_VALUE_CONVERT_H_
