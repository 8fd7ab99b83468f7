#include "core/value/untyped.h"

#include "absl/strings/str_cat.h"

namespace tsb {

c10::IValue WrapUntyped(c10::intrusive_ptr<UntypedValue> value) {
  return c10::IValue::make_capsule(std::move(value));
}

const UntypedValue* AsUntyped(const c10::IValue& value) {
  if (!value.isCapsule()) return nullptr;
  // The capsule's payload, without a refcount round trip.
  const auto* holder = static_cast<const torch::CustomClassHolder*>(value.internalToPointer());
  return dynamic_cast<const UntypedValue*>(holder);
}

bool IsUntyped(const c10::IValue& value) { return AsUntyped(value) != nullptr; }

std::optional<std::vector<c10::IValue>> UntypedItems(const c10::IValue& value) {
  const UntypedValue* untyped = AsUntyped(value);
  if (untyped == nullptr) return std::nullopt;
  return untyped->Items();
}

std::optional<std::vector<std::pair<std::string, c10::IValue>>> UntypedFields(
    const c10::IValue& value) {
  const UntypedValue* untyped = AsUntyped(value);
  if (untyped == nullptr) return std::nullopt;
  return untyped->Fields();
}

absl::StatusOr<c10::IValue> NaturalValue(const c10::IValue& value) {
  const UntypedValue* untyped = AsUntyped(value);
  if (untyped == nullptr) return value;
  return untyped->Natural();
}

}  // namespace tsb
