#include "core/abi/arguments.h"

#include <cstdlib>
#include <cstring>
#include <new>

#include "absl/strings/str_cat.h"
#include "core/abi/guard.h"
#include "tsbridge/plugin/kind_codec.hpp"

namespace tsb::abi {

char* MallocCopy(const char* data, size_t size, bool terminate) {
  char* out = static_cast<char*>(std::malloc(size + (terminate ? 1 : 0) + (size == 0)));
  if (out == nullptr) throw std::bad_alloc();
  if (size > 0) std::memcpy(out, data, size);
  if (terminate) out[size] = '\0';
  return out;
}

absl::Status CheckArg(const void* p, const char* name) {
  if (p != nullptr) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("argument '", name, "' is NULL"));
}

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

absl::Status NotInt64(uint64_t found) {
  return TypeError(absl::StrCat("expected int (int64_t), got int ", found,
                                ", above INT64_MAX (a uint: read its u.u)"));
}

absl::StatusOr<TypedValue> TypedArg(const tsb_any* value, const char* name) {
  TSB_RETURN_IF_ERROR(CheckArg(value, name));
  return Decode(*value);
}

absl::Status BorrowArg(const tsb_any* value, const char* name, BorrowedValue* out) {
  TSB_RETURN_IF_ERROR(CheckArg(value, name));
  return Borrow(*value, out);
}

namespace {
absl::Status CheckKind(const TypeInfo& type, const c10::IValue& value, tsb_kind kind) {
  if (type.kind == kind) return absl::OkStatus();
  const char* what = kind == TSB_KIND_DICT ? "a Dict" : "a List";
  return TypeError(absl::StrCat("expected ", what, ", got ", DescribeValue(value)));
}
}  // namespace

absl::StatusOr<TypedValue> ContainerArg(const tsb_any* value, tsb_kind kind,
                                        const char* name) {
  TSB_ASSIGN_OR_RETURN(TypedValue typed, TypedArg(value, name));
  TSB_RETURN_IF_ERROR(CheckKind(*typed.type, typed.value, kind));
  return typed;
}

absl::Status BorrowContainerArg(const tsb_any* value, tsb_kind kind, const char* name,
                                BorrowedValue* out) {
  TSB_RETURN_IF_ERROR(BorrowArg(value, name, out));
  return CheckKind(*out->type, *out->value, kind);
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

absl::Status CallArgsArg(const tsb_call_args* args, call::HostArgs* out) {
  TSB_RETURN_IF_ERROR(CheckCallArgs(args));
  if (args == nullptr) return absl::OkStatus();
  return call::DecodeArgs(args->args, args->num_args, args->kw_names, args->kw_values,
                          args->num_kwargs, out);
}

}  // namespace tsb::abi
