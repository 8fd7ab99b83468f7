#include "core/abi/arguments.h"

#include "absl/strings/str_cat.h"
#include "core/abi/guard.h"
#include "tsbridge/kind_codec.hpp"

namespace tsb::abi {

absl::StatusOr<c10::IValue> ValueArg(const tsb_any* value, const char* name) {
  TSB_RETURN_IF_ERROR(CheckArg(value, name));
  return ToIValue(*value);
}

absl::StatusOr<c10::IValue> ValueArgOfType(const tsb_any* value,
                                           int32_t type_index, const char* name) {
  TSB_ASSIGN_OR_RETURN(c10::IValue iv, ValueArg(value, name));
  if (value->type_index == type_index) return iv;
  TSB_ASSIGN_OR_RETURN(const TypeInfo* expected, FindType(type_index));
  return Mismatch(*expected, iv);
}

absl::StatusOr<TypedValue> ContainerArg(const tsb_any* value, tsb_kind kind,
                                        const char* name) {
  TSB_ASSIGN_OR_RETURN(c10::IValue iv, ValueArg(value, name));
  TSB_ASSIGN_OR_RETURN(const TypeInfo* type, FindType(value->type_index));
  if (type->kind != kind) {
    const char* what = kind == TSB_KIND_DICT ? "a Dict" : "a List";
    return TypeError(absl::StrCat("expected ", what, ", got ", DescribeValue(iv)));
  }
  return TypedValue{std::move(iv), type};
}

absl::Status CheckCallArgs(const tsb_call_args* args) {
  if (args == nullptr) return absl::OkStatus();
  if (args->struct_size < sizeof(tsb_call_args)) {
    return absl::InvalidArgumentError(
        absl::StrCat("tsb_call_args.struct_size is ", args->struct_size,
                     ": set it to sizeof(tsb_call_args) (", sizeof(tsb_call_args), ")"));
  }
  if (args->num_args > 0) TSB_RETURN_IF_ERROR(CheckArg(args->args, "args->args"));
  if (args->num_kwargs > 0) {
    TSB_RETURN_IF_ERROR(CheckArg(args->kw_names, "args->kw_names"));
    TSB_RETURN_IF_ERROR(CheckArg(args->kw_values, "args->kw_values"));
  }
  return absl::OkStatus();
}

}  // namespace tsb::abi
