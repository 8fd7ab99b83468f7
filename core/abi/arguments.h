// Checks shared by the exported functions: NULL arguments, malformed
// values, values of the wrong kind.
#ifndef TSBRIDGE_CORE_ABI_ARGUMENTS_H_
#define TSBRIDGE_CORE_ABI_ARGUMENTS_H_

#include <ATen/core/ivalue.h>

#include "absl/status/statusor.h"
#include "tsbridge/kind_codec.hpp"
#include "tsbridge/tsbridge.h"

namespace tsb::abi {

// The IValue of a non-NULL, well-formed boundary value.
absl::StatusOr<c10::IValue> ValueArg(const tsb_any* value, const char* name);

// The same, required to have the fixed leaf type `type_index`; otherwise
// "expected int, got str \"x\"".
absl::StatusOr<c10::IValue> ValueArgOfType(const tsb_any* value,
                                           int32_t type_index, const char* name);

// The IValue and type of a value required to be of `kind` (List, Dict):
// otherwise "expected a Dict, got List[int] of length 3".
struct TypedValue {
  c10::IValue value;
  const TypeInfo* type;
};
absl::StatusOr<TypedValue> ContainerArg(const tsb_any* value, tsb_kind kind,
                                        const char* name);

}  // namespace tsb::abi

#endif  // TSBRIDGE_CORE_ABI_ARGUMENTS_H_
