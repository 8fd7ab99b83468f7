// Views of a host's untyped values, for kind codecs that build their kind
// from a sequence or a record (plugins/tuple does).
//
// A host whose format has no TorchScript types (tsb_json_read) cannot tell
// what a value is until a codec names a type: JSON 1 is an int, a float or a
// complex, [1, 2] a List or a Tuple. It hands such a value to the expected
// kind's codec *untyped*. tsb::CoerceTo(untyped, T) reads it as T, so a
// codec that converts its parts with CoerceTo (an Optional, a container's
// elements) needs nothing from this header, and tsb::DescribeValue says what
// the host saw ("JSON number 1.5"). Implemented in libtsbridge.so.
#ifndef TSBRIDGE_UNTYPED_HPP_
#define TSBRIDGE_UNTYPED_HPP_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <ATen/core/ivalue.h>

#include "absl/status/statusor.h"

namespace tsb {

// Whether `value` is a host's untyped value.
bool IsUntyped(const c10::IValue& value);

// The items of an untyped sequence (a JSON array), each untyped itself;
// nullopt for anything else.
std::optional<std::vector<c10::IValue>> UntypedItems(const c10::IValue& value);

// The members of an untyped record (a JSON object) in order, each untyped;
// nullopt for anything else.
std::optional<std::vector<std::pair<std::string, c10::IValue>>> UntypedFields(
    const c10::IValue& value);

// What the host reads when no type decides, as `Any` would (JSON 1 is int 1,
// [1, 2] a List[Any]); any other value is returned as it is.
absl::StatusOr<c10::IValue> NaturalValue(const c10::IValue& value);

}  // namespace tsb

#endif  // TSBRIDGE_UNTYPED_HPP_
