// KindCodec for TorchScript Enum types (class Color(Enum): RED = 1 ...).
//
// An Enum value crosses as a handle on LibTorch's EnumHolder. Its type info
// names the Enum ("__torch__.Color"), lists the member names as field names
// and has one contained type, the members' value type (int, float or str).
// tsb_enum_get (core/abi/enum_abi.cc) reads a value's member and value.
//
// Coercion is type-directed, so a host builds an Enum from what it has: a
// str naming a member, or a value equal to a member's value (converted to
// the value type first, so int 2 finds a float member 2.0).
#include <optional>
#include <string>

#include <ATen/core/enum_type.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/codecs/builtin_codecs.h"
#include "tsbridge/plugin/kind_codec.hpp"

namespace tsb {
namespace {

// A member's value as TorchScript source spells it: 1, 0.5, "dark".
std::string SpellValue(const c10::IValue& value) {
  if (value.isInt()) return absl::StrCat(value.toInt());
  if (value.isDouble()) {
    std::string text = absl::StrCat(value.toDouble());
    if (text.find_first_of(".eni") == std::string::npos) text += ".0";
    return text;
  }
  if (value.isString()) return absl::StrCat("\"", value.toStringRef(), "\"");
  return DescribeValue(value);
}

// "RED = 1, GREEN = 2": what an error lists so the caller can fix the call.
std::string SpellMembers(const c10::EnumType& type) {
  return absl::StrJoin(type.enumNamesValues(), ", ", [](std::string* out, const auto& m) {
    absl::StrAppend(out, m.first, " = ", SpellValue(m.second));
  });
}

class EnumCodec final : public KindCodec {
 public:
  tsb_kind kind() const override { return TSB_KIND_ENUM; }
  c10::TypeKind type_kind() const override { return c10::TypeKind::EnumType; }

  std::string InternName(const c10::Type& type) const override {
    return NamedTypeIdentity(type);
  }

  absl::Status Describe(TypeInfo& info) const override {
    const auto& type = info.type->expectRef<c10::EnumType>();
    info.name = type.qualifiedClassName().qualifiedName();
    for (const c10::EnumNameValue& member : type.enumNamesValues()) {
      info.field_names.push_back(member.first);
    }
    return absl::OkStatus();
  }

  absl::StatusOr<c10::IValue> Coerce(const c10::IValue& value,
                                     const TypeInfo& expected) const override {
    if (value.isEnum()) {
      std::shared_ptr<c10::EnumType> have = value.toEnumHolder()->type();
      if (have.get() == expected.type.get() || *have == *expected.type) {
        return value;
      }
      if (have->annotation_str() == expected.annotation) return SameName(expected, value);
      return Mismatch(expected, value);  // another Enum: never converted
    }
    auto type = expected.type->cast<c10::EnumType>();
    const auto members = type->enumNamesValues();

    std::optional<size_t> by_name;
    if (value.isString()) {
      const std::string& text = value.toStringRef();
      for (size_t i = 0; i < members.size(); ++i) {
        if (members[i].first == text) by_name = i;
      }
    }
    std::optional<size_t> by_value;
    TSB_ASSIGN_OR_RETURN(const TypeInfo* value_type, FindType(expected.contained[0]));
    absl::StatusOr<c10::IValue> converted = CoerceTo(value, *value_type);
    if (converted.ok()) {
      for (size_t i = 0; i < members.size() && !by_value; ++i) {
        if (members[i].second == *converted) by_value = i;
      }
    }

    // A str Enum may have a member named like another member's value
    // (A = "B", B = "A"): refuse to guess, as Union does.
    if (by_name && by_value && *by_name != *by_value) {
      return TypeError(absl::StrCat(
          "ambiguous: ", DescribeValue(value), " names ", expected.annotation, ".",
          members[*by_name].first, " and is the value of ", expected.annotation, ".",
          members[*by_value].first));
    }
    std::optional<size_t> found = by_name ? by_name : by_value;
    if (!found) {
      return TypeError(absl::StrCat("expected ", expected.annotation, ", got ",
                                    DescribeValue(value), " (members: ",
                                    SpellMembers(*type), ")"));
    }
    const c10::EnumNameValue& member = members[*found];
    return c10::IValue(
        c10::make_intrusive<c10::ivalue::EnumHolder>(type, member.first, member.second));
  }

  // Field names are member names, not readable fields: say where to look.
  absl::Status Field(const c10::IValue& value, const TypeInfo& info,
                     absl::string_view name, tsb_any* out) const override {
    return TypeError(absl::StrCat(info.annotation,
                                  " is an Enum: it has no fields (read its member "
                                  "and value with tsb_enum_get)"));
  }
};

}  // namespace

std::unique_ptr<KindCodec> MakeEnumCodec() { return std::make_unique<EnumCodec>(); }

}  // namespace tsb
