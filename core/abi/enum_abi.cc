// Enums at the host ABI: reading a value's member and value. Building one
// is tsb_any_coerce's job (core/codecs/enum_codec.cc); objects' fields are read
// with tsb_any_get_field (core/codecs/object_codec.cc).
#include "absl/strings/str_cat.h"
#include "core/abi/arguments.h"
#include "core/abi/guard.h"
#include "tsbridge/plugin/kind_codec.hpp"

using tsb::TypeInfo;
using tsb::abi::Guard;
using tsb::abi::ValueArg;

extern "C" {

tsb_status* tsb_enum_get(const tsb_any* v, const char** member_name, tsb_any* value) {
  return Guard([&]() -> absl::Status {
    TSB_ASSIGN_OR_RETURN(tsb::TypedValue arg, tsb::abi::TypedArg(v, "v"));
    const c10::IValue& iv = arg.value;
    const TypeInfo* type = arg.type;
    if (type->kind != TSB_KIND_ENUM) {
      return tsb::TypeError(
          absl::StrCat("expected an Enum, got ", tsb::DescribeValue(iv)));
    }
    const auto holder = iv.toEnumHolder();
    // The member's name from the type info: it lives as long as the process,
    // not only as long as this value.
    const std::string* name = nullptr;
    for (const std::string& member : type->field_names) {
      if (member == holder->name()) name = &member;
    }
    if (name == nullptr) {
      return absl::InternalError(absl::StrCat(type->annotation, " has no member '",
                                              holder->name(), "'"));
    }
    if (value != nullptr) {
      TSB_ASSIGN_OR_RETURN(const TypeInfo* value_type, tsb::FindType(type->contained[0]));
      TSB_RETURN_IF_ERROR(tsb::ToBoundary(holder->value(), *value_type, value));
    }
    if (member_name != nullptr) *member_name = name->c_str();
    return absl::OkStatus();
  });
}

}  // extern "C"
