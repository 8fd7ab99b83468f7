#include "core/codec/codec.h"

#include "absl/strings/str_cat.h"
#include "core/errors/errors.h"
#include "core/value/object.h"

namespace tsb {

std::string Codec::InternName(const c10::Type& type) const {
  if (const auto* named = type.castRaw<c10::NamedType>()) {
    if (named->name().has_value()) return named->name()->qualifiedName();
  }
  return std::string();
}

absl::Status Codec::Describe(TypeInfo&) const { return absl::OkStatus(); }

absl::Status Codec::Encode(c10::IValue value, const TypeInfo& info,
                           tsb_any* out) const {
  *out = MakeHandle(info.index, std::move(value));
  return absl::OkStatus();
}

absl::StatusOr<c10::IValue> Codec::Decode(const tsb_any& value) const {
  if (!IsHandle(value)) {
    return absl::InvalidArgumentError(
        "malformed value: a handle was expected but u.obj is NULL");
  }
  return value.u.obj->value;
}

absl::StatusOr<size_t> Codec::Length(const c10::IValue&,
                                     const TypeInfo& info) const {
  return TypeError(absl::StrCat("expected a List, Dict or Tuple, got ",
                                info.annotation));
}

absl::Status Codec::Item(const c10::IValue&, const TypeInfo& info, size_t,
                         tsb_any*) const {
  return TypeError(absl::StrCat("expected a List or Tuple, got ",
                                info.annotation));
}

}  // namespace tsb
