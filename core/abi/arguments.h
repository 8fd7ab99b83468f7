// Checks shared by the exported functions: NULL arguments, malformed
// values, values of the wrong kind.
#ifndef TSBRIDGE_CORE_ABI_ARGUMENTS_H_
#define TSBRIDGE_CORE_ABI_ARGUMENTS_H_

#include <algorithm>
#include <cstring>

#include <ATen/core/ivalue.h>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "core/abi/guard.h"
#include "core/call/call.h"
#include "core/value/convert.h"
#include "tsbridge/plugin/kind_codec.hpp"
#include "tsbridge/tsbridge.h"

namespace tsb::abi {

// A malloc'ed copy, released by tsb_string_free (std::free); NUL-terminated
// when `terminate`. Never NULL on success, even for zero bytes.
char* MallocCopy(const char* data, size_t size, bool terminate);

// The IValue of a non-NULL, well-formed boundary value.
absl::StatusOr<c10::IValue> ValueArg(const tsb_any* value, const char* name);

// The same, required to have the fixed leaf type `type_index`; otherwise
// "expected int, got str \"x\"".
absl::StatusOr<c10::IValue> ValueArgOfType(const tsb_any* value,
                                           int32_t type_index, const char* name);

// An int64_t asked for an int above INT64_MAX (a TSB_TYPE_UINT, u.u):
// "expected int (int64_t), got int 9223372036854775808, above INT64_MAX ...".
absl::Status NotInt64(uint64_t found);

// The IValue of a non-NULL, well-formed boundary value and the type it
// carries at the boundary, in one lookup.
absl::StatusOr<TypedValue> TypedArg(const tsb_any* value, const char* name);

// The same, required to be of `kind` (List, Dict): otherwise "expected a
// Dict, got List[int] of length 3".
absl::StatusOr<TypedValue> ContainerArg(const tsb_any* value, tsb_kind kind,
                                        const char* name);

// A non-NULL, well-formed boundary value borrowed, not copied (a handle's
// own IValue), with its type from one lookup: for accessors that only read.
absl::Status BorrowArg(const tsb_any* value, const char* name, BorrowedValue* out);
// The same, required to be of `kind`, as ContainerArg.
absl::Status BorrowContainerArg(const tsb_any* value, tsb_kind kind, const char* name,
                                BorrowedValue* out);

// A call's arguments (NULL: none): the struct is at least as large as ABI
// 1.0's, and each non-empty array is non-NULL.
absl::Status CheckCallArgs(const tsb_call_args* args);
// The checked arguments of a call, decoded for the binder into *out (empty
// for NULL args).
absl::Status CallArgsArg(const tsb_call_args* args, call::HostArgs* out);

// Fills a host's versioned struct (one that starts with struct_size): checks
// the size the host set, lets `describe` fill a whole struct, and copies only
// as many bytes as the host's struct has, so an older, shorter header gets
// the fields it knows and the struct can grow.
template <typename Info, typename Describe>
absl::Status VersionedOut(Info* out, const char* name, Describe describe) {
  TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
  if (out->struct_size < sizeof(out->struct_size)) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ".struct_size must be set to sizeof(", name, ")"));
  }
  Info info{};
  TSB_RETURN_IF_ERROR(describe(&info));
  info.struct_size = out->struct_size;
  std::memcpy(out, &info, std::min(out->struct_size, sizeof(info)));
  return absl::OkStatus();
}

}  // namespace tsb::abi

#endif  // TSBRIDGE_CORE_ABI_ARGUMENTS_H_
