// Type queries: parse, compose and describe interned types.
#include "absl/strings/str_cat.h"
#include "core/abi/arguments.h"
#include "core/abi/guard.h"
#include "tsbridge/plugin/kind_codec.hpp"
#include "core/types/type_parser.h"
#include "core/types/type_registry.h"

using tsb::abi::CheckArg;
using tsb::abi::Guard;

namespace {

absl::Status InternInto(const c10::TypePtr& type, int32_t* out) {
  TSB_ASSIGN_OR_RETURN(const tsb::TypeInfo* info,
                       tsb::TypeRegistry::Global().Intern(type));
  *out = info->index;
  return absl::OkStatus();
}

}  // namespace

extern "C" {

tsb_status* tsb_type_get_kind(int32_t type_index, tsb_kind* out) {
  // A host's walk asks once per value: a known index needs no guard.
  if (out != nullptr) {
    if (const tsb::TypeInfo* info = tsb::TypeRegistry::Global().Find(type_index)) {
      *out = info->kind;
      return nullptr;
    }
  }
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    TSB_ASSIGN_OR_RETURN(const tsb::TypeInfo* info, tsb::FindType(type_index));
    *out = info->kind;
    return absl::OkStatus();
  });
}

tsb_status* tsb_type_get_info(int32_t type_index, tsb_type_info* out) {
  return Guard([&]() -> absl::Status {
    return tsb::abi::VersionedOut(out, "tsb_type_info", [&](tsb_type_info* info) -> absl::Status {
      TSB_ASSIGN_OR_RETURN(const tsb::TypeInfo* type, tsb::FindType(type_index));
      info->kind = type->kind;
      info->annotation = type->annotation.c_str();
      info->name = type->name.c_str();
      info->num_contained = type->contained.size();
      info->contained = type->contained.data();
      info->field_names =
          type->field_name_ptrs.empty() ? nullptr : type->field_name_ptrs.data();
      info->provider = type->provider.c_str();
      info->num_fields = type->field_names.size();
      return absl::OkStatus();
    });
  });
}

tsb_status* tsb_type_parse(const char* annotation, int32_t* out) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(annotation, "annotation"));
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    TSB_ASSIGN_OR_RETURN(const tsb::TypeInfo* type, tsb::ParseAndIntern(annotation));
    *out = type->index;
    return absl::OkStatus();
  });
}

tsb_status* tsb_type_make_list(int32_t element, int32_t* out) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    TSB_ASSIGN_OR_RETURN(const tsb::TypeInfo* type, tsb::FindType(element));
    return InternInto(c10::ListType::create(type->type), out);
  });
}

tsb_status* tsb_type_make_dict(int32_t key, int32_t value, int32_t* out) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    TSB_ASSIGN_OR_RETURN(const tsb::TypeInfo* key_type, tsb::FindType(key));
    TSB_ASSIGN_OR_RETURN(const tsb::TypeInfo* value_type, tsb::FindType(value));
    // LibTorch decides which key types a Dict may have.
    return InternInto(c10::DictType::create(key_type->type, value_type->type), out);
  });
}

}  // extern "C"
