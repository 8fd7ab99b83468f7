// The KindCodec defaults and FindType: the interface of tsbridge/plugin/
// type_info.hpp, at the layer that holds the codecs.
#include "tsbridge/plugin/type_info.hpp"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/object/object.h"
#include "core/types/type_registry.h"
#include "tsbridge/plugin/errors.hpp"

namespace tsb {

absl::StatusOr<const TypeInfo*> FindType(int32_t index) {
  const TypeInfo* info = TypeRegistry::Global().Find(index);
  if (info == nullptr) {
    return absl::NotFoundError(absl::StrCat("unknown type index ", index));
  }
  return info;
}

std::string KindCodec::InternName(const c10::Type& type) const {
  if (const auto* named = type.castRaw<c10::NamedType>()) {
    if (named->name().has_value()) return named->name()->qualifiedName();
  }
  return std::string();
}

absl::Status KindCodec::Describe(TypeInfo&) const { return absl::OkStatus(); }

absl::Status KindCodec::Encode(c10::IValue value, const TypeInfo& info,
                           tsb_any* out) const {
  *out = MakeHandle(info.index, std::move(value));
  return absl::OkStatus();
}

absl::StatusOr<c10::IValue> KindCodec::Decode(const tsb_any& value) const {
  if (!IsHandle(value)) {
    return absl::InvalidArgumentError(
        "malformed value: a handle was expected but u.obj is NULL");
  }
  return value.u.obj->value;
}

absl::StatusOr<size_t> KindCodec::Length(const c10::IValue&,
                                     const TypeInfo& info) const {
  return TypeError(absl::StrCat("expected a List, Dict or Tuple, got ",
                                info.annotation));
}

absl::Status KindCodec::Item(const c10::IValue&, const TypeInfo& info, size_t,
                         tsb_any*) const {
  return TypeError(absl::StrCat("expected a List or Tuple, got ",
                                info.annotation));
}

absl::Status KindCodec::Field(const c10::IValue& value, const TypeInfo& info,
                              absl::string_view name, tsb_any* out) const {
  if (info.field_names.empty()) {
    return TypeError(absl::StrCat("expected a NamedTuple, got ", info.annotation));
  }
  for (size_t i = 0; i < info.field_names.size(); ++i) {
    if (info.field_names[i] == name) return Item(value, info, i, out);
  }
  return absl::NotFoundError(absl::StrCat(info.annotation, " has no field '", name,
                                          "' (fields: ",
                                          absl::StrJoin(info.field_names, ", "), ")"));
}

}  // namespace tsb
