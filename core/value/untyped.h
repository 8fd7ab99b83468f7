// Untyped values: what a host hands over when its format has no TorchScript
// types (tsb_json_read). JSON 1 is an int, a float or a complex, and [1, 2]
// a List or a Tuple, depending on the type a codec asks for; so the host
// wraps the value in an UntypedValue and CoerceTo asks it to read itself as
// the expected type. The host reads leaves and the containers it has a form
// for; every other kind (Tuple, Optional, Union, a plugin's kind) gets the
// untyped value from CoerceTo and applies its own rule, opening sequences and
// records through the views in tsbridge/plugin/untyped.hpp (UntypedItems, ...).
#ifndef TSBRIDGE_CORE_VALUE_UNTYPED_H_
#define TSBRIDGE_CORE_VALUE_UNTYPED_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <ATen/core/ivalue.h>

#include "absl/status/statusor.h"
#include "tsbridge/plugin/kind_codec.hpp"
#include "tsbridge/plugin/untyped.hpp"

namespace tsb {

class UntypedValue : public torch::CustomClassHolder {
 public:
  // The value as `expected`; what CoerceTo(untyped, expected) returns.
  virtual absl::StatusOr<c10::IValue> ReadAs(const TypeInfo& expected) const = 0;
  // What an error says it found: "JSON number 1.5".
  virtual std::string Describe() const = 0;
  // The items of a sequence (a JSON array), each untyped; nullopt otherwise.
  virtual std::optional<std::vector<c10::IValue>> Items() const = 0;
  // The members of a record (a JSON object), in order; nullopt otherwise.
  virtual std::optional<std::vector<std::pair<std::string, c10::IValue>>> Fields()
      const = 0;
  // The value the host reads when no type decides (what Any gets).
  virtual absl::StatusOr<c10::IValue> Natural() const = 0;
};

// An IValue (a Capsule) holding `value`.
c10::IValue WrapUntyped(c10::intrusive_ptr<UntypedValue> value);

// The untyped value `value` holds, or nullptr: any other IValue, Capsules of
// torchbind objects included.
const UntypedValue* AsUntyped(const c10::IValue& value);

}  // namespace tsb

#endif  // TSBRIDGE_CORE_VALUE_UNTYPED_H_
