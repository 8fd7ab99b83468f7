#include "tsbridge/kind_codec.hpp"

#include <ATen/core/class_type.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/types/type_registry.h"
#include "core/value/object.h"

namespace tsb {

absl::StatusOr<const TypeInfo*> FindType(int32_t index) {
  const TypeInfo* info = TypeRegistry::Global().Find(index);
  if (info == nullptr) {
    return absl::NotFoundError(absl::StrCat("unknown type index ", index));
  }
  return info;
}

absl::StatusOr<const TypeInfo*> TypeOfValue(const c10::IValue& value) {
  // Leaf values map straight to their fixed indices: no type object is built.
  int32_t leaf = value.isNone()            ? TSB_TYPE_NONE
                 : value.isBool()          ? TSB_TYPE_BOOL
                 : value.isInt()           ? TSB_TYPE_INT
                 : value.isDouble()        ? TSB_TYPE_FLOAT
                 : value.isComplexDouble() ? TSB_TYPE_COMPLEX
                 : value.isString()        ? TSB_TYPE_STR
                 : value.isTensor()        ? TSB_TYPE_TENSOR
                 : value.isDevice()        ? TSB_TYPE_DEVICE
                                           : TSB_TYPE_INVALID;
  if (leaf != TSB_TYPE_INVALID) return FindType(leaf);
  return TypeRegistry::Global().Intern(value.type());
}

absl::StatusOr<c10::IValue> ToIValue(const tsb_any& value) {
  TSB_ASSIGN_OR_RETURN(const TypeInfo* info, FindType(value.type_index));
  if ((value.flags & ~(TSB_FLAG_HANDLE | TSB_FLAG_BORROWED_STR)) != 0 ||
      ((value.flags & TSB_FLAG_BORROWED_STR) != 0 &&
       (value.type_index != TSB_TYPE_STR || (value.flags & TSB_FLAG_HANDLE) != 0))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "malformed value: flags ", value.flags, " do not fit type ", info->annotation));
  }
  if (IsHandle(value) && value.u.obj->type_index != value.type_index) {
    return absl::InvalidArgumentError(absl::StrCat(
        "malformed value: type_index ", value.type_index,
        " does not match its handle's type index ", value.u.obj->type_index));
  }
  return info->codec->Decode(value);
}

absl::Status ToBoundary(c10::IValue value, const TypeInfo& static_type,
                        tsb_any* out) {
  if (!static_type.codec->is_abstract()) {
    return static_type.codec->Encode(std::move(value), static_type, out);
  }
  return ToBoundary(std::move(value), out);
}

absl::Status ToBoundary(c10::IValue value, tsb_any* out) {
  TSB_ASSIGN_OR_RETURN(const TypeInfo* type, TypeOfValue(value));
  return type->codec->Encode(std::move(value), *type, out);
}

absl::StatusOr<c10::IValue> CoerceTo(const c10::IValue& value,
                                     const TypeInfo& expected) {
  return expected.codec->Coerce(value, expected);
}

namespace {
std::string Truncated(std::string text, size_t limit = 40) {
  if (text.size() > limit) text = absl::StrCat(text.substr(0, limit), "...");
  return text;
}
}  // namespace

std::string DescribeValue(const c10::IValue& value) {
  if (value.isNone()) return "None";
  if (value.isBool()) return value.toBool() ? "bool True" : "bool False";
  if (value.isInt()) return absl::StrCat("int ", value.toInt());
  if (value.isDouble()) return absl::StrCat("float ", value.toDouble());
  if (value.isString()) {
    return absl::StrCat("str \"", Truncated(value.toStringRef()), "\"");
  }
  if (value.isTensor()) {
    const at::Tensor& t = value.toTensor();
    if (!t.defined()) return "undefined Tensor";
    return absl::StrCat("Tensor of shape [", absl::StrJoin(t.sizes(), ", "),
                        "] and dtype ", c10::toString(t.scalar_type()));
  }
  if (value.isDevice()) {
    return absl::StrCat("Device \"", value.toDevice().str(), "\"");
  }
  if (value.isList()) {
    return absl::StrCat(value.type()->annotation_str(), " of length ",
                        value.toListRef().size());
  }
  if (value.isGenericDict()) {
    return absl::StrCat(value.type()->annotation_str(), " of length ",
                        value.toGenericDict().size());
  }
  if (value.isEnum()) {  // "__torch__.Color.RED", as TorchScript names it
    const auto& holder = value.toEnumHolder();
    return absl::StrCat(holder->qualifiedClassName(), ".", holder->name());
  }
  if (value.isObject()) {  // LibTorch would print the object's address
    return absl::StrCat(value.toObjectRef().type()->annotation_str(), " object");
  }
  try {
    std::ostringstream text;
    text << value;
    return absl::StrCat(value.type()->annotation_str(), " ", Truncated(text.str()));
  } catch (...) {
    return value.tagKind();
  }
}

absl::Status Mismatch(const TypeInfo& expected, const c10::IValue& found) {
  return TypeError(
      absl::StrCat("expected ", expected.annotation, ", got ", DescribeValue(found)));
}

}  // namespace tsb
