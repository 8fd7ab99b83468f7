// What differs between the LibTorch releases tsbridge builds against
// (docs/platforms.md): 1.13 (Debian 12), 2.6 (Debian 13) and 2.14 (Debian
// testing). Every version test in the tree is here; code elsewhere calls
// these and stays one copy.
#ifndef TSBRIDGE_CORE_COMPAT_TORCH_COMPAT_H_
#define TSBRIDGE_CORE_COMPAT_TORCH_COMPAT_H_

#include <cstdint>
#include <memory>
#include <string>

#include <ATen/DLConvertor.h>
#include <ATen/core/ivalue.h>
#include <c10/util/Exception.h>
#include <torch/csrc/jit/frontend/lexer.h>
#include <torch/csrc/jit/frontend/schema_type_parser.h>
#include <torch/version.h>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "tsbridge/tsbridge.h"

#define TSB_TORCH_AT_LEAST(major, minor) \
  (TORCH_VERSION_MAJOR > (major) ||      \
   (TORCH_VERSION_MAJOR == (major) && TORCH_VERSION_MINOR >= (minor)))

namespace tsb::compat {

// This LibTorch as its release is named where versions clash ("1.13"): the
// major and minor of its headers. Debian's soname of libtorch_cpu carries
// the same two (libtorch_cpu.so.2.6), and so does a plugin's platform tag.
inline std::string LibTorchRelease() {
  return absl::StrCat(TORCH_VERSION_MAJOR, ".", TORCH_VERSION_MINOR);
}

// The C++ backtrace of a c10::Error: a string in 1.13, a lazily symbolised
// value from 2.x on.
inline std::string ErrorBacktrace(const c10::Error& e) {
#if TSB_TORCH_AT_LEAST(2, 0)
  return e.backtrace() ? e.backtrace()->get() : std::string();
#else
  return e.backtrace();
#endif
}

// A schema-syntax type parser ("int[]", "Dict(str, Tensor)"); 2.x added
// type variables (allow_typevars), which a type string must not hold.
inline torch::jit::SchemaTypeParser SchemaTypeParserFor(torch::jit::Lexer& lexer) {
#if TSB_TORCH_AT_LEAST(2, 0)
  return torch::jit::SchemaTypeParser(lexer, /*parse_complete_tensor_types=*/false,
                                      /*allow_typevars=*/false);
#else
  return torch::jit::SchemaTypeParser(lexer, /*parse_complete_tensor_types=*/false);
#endif
}

// Bool tensors through DLPack. 2.x speaks DLPack 0.8, whose kDLBool (code 6,
// 8 bits) its converter reads and writes; 1.13's speaks 0.6, which has no
// bool and refuses one. On 1.13 the same code crosses here, as the same
// bytes: out, the dtype is written as 2.x writes it; in, the bytes are read
// as uint8 and viewed as bool (no copy either way).
inline constexpr uint8_t kDLPackBoolCode = 6;

// Whether `dtype` is DLPack's bool: code 6, one byte, one lane.
inline bool IsDLPackBool(const DLDataType& dtype) {
  return dtype.code == kDLPackBoolCode && dtype.bits == 8 && dtype.lanes == 1;
}

inline DLDataType DLDataTypeOf(const at::Tensor& t) {
#if !TSB_TORCH_AT_LEAST(2, 0)
  if (t.scalar_type() == at::kBool) return DLDataType{kDLPackBoolCode, 8, 1};
#endif
  return at::getDLDataType(t);
}

// at::fromDLPack, which consumes `managed`.
inline at::Tensor FromDLPack(DLManagedTensor* managed) {
#if !TSB_TORCH_AT_LEAST(2, 0)
  DLDataType& dtype = managed->dl_tensor.dtype;
  if (IsDLPackBool(dtype)) {
    dtype.code = kDLUInt;
    at::Tensor bytes = at::fromDLPack(managed);
    dtype.code = kDLPackBoolCode;  // the producer's struct as it was (the tensor owns it now)
    return bytes.view(at::kBool);
  }
#endif
  return at::fromDLPack(managed);
}

// The scalar type of a DLPack dtype (at::toScalarType), bool included.
inline at::ScalarType ScalarTypeOf(const DLDataType& dtype) {
#if !TSB_TORCH_AT_LEAST(2, 0)
  if (IsDLPackBool(dtype)) return at::kBool;
#endif
  return at::toScalarType(dtype);
}

// Versioned DLPack (DLManagedTensorVersioned, DLPack 1.x) through LibTorch's
// own converters, at::toDLPackVersioned and at::fromDLPackVersioned, which
// LibTorch 2.9 added; before it neither they nor the struct exist.
//
// VersionedDLPackAvailable: OK where they exist, else why (hosts probe it).
inline absl::Status VersionedDLPackAvailable(const char* call) {
#if TSB_TORCH_AT_LEAST(2, 9)
  static_cast<void>(call);
  return absl::OkStatus();
#else
  return absl::UnimplementedError(absl::StrCat(
      call, " needs LibTorch 2.9 or newer (at::toDLPackVersioned, at::fromDLPackVersioned); "
      "found LibTorch ", TORCH_VERSION_MAJOR, ".", TORCH_VERSION_MINOR, ".", TORCH_VERSION_PATCH,
      ": the unversioned tsb_tensor_to_dlpack / tsb_tensor_from_dlpack serve"));
#endif
}

#if TSB_TORCH_AT_LEAST(2, 9)
inline absl::StatusOr<DLManagedTensorVersioned*> ToDLPackVersioned(const at::Tensor& t) {
  return at::toDLPackVersioned(t);  // flags 0: writable, not a copy
}

// at::fromDLPackVersioned of `managed` once `check` accepted its DLTensor.
// The major version is checked before anything else is read. A read-only
// tensor is copied (a LibTorch tensor is always writable, and LibTorch's
// converter ignores the flag: it would share the buffer) and its deleter
// called before this returns; so is an empty one with NULL data. On an error
// nothing is consumed.
inline absl::StatusOr<at::Tensor> FromDLPackVersioned(
    DLManagedTensorVersioned* managed, absl::FunctionRef<absl::Status(const DLTensor&)> check) {
  if (managed->version.major != DLPACK_MAJOR_VERSION) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected a DLManagedTensorVersioned of DLPack major version ", DLPACK_MAJOR_VERSION,
        " (LibTorch ", TORCH_VERSION_MAJOR, ".", TORCH_VERSION_MINOR, " speaks DLPack ",
        DLPACK_MAJOR_VERSION, ".", DLPACK_MINOR_VERSION, "), found ", managed->version.major, ".",
        managed->version.minor, ": refused unread, the caller keeps it"));
  }
  if (absl::Status s = check(managed->dl_tensor); !s.ok()) return s;
  const bool read_only = (managed->flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0;
  if (!read_only && managed->dl_tensor.data != nullptr) return at::fromDLPackVersioned(managed);
  // A view that never calls the deleter, copied; then the producer's is called.
  at::Tensor copy = at::fromDLPackVersioned(managed, [](void*) {}).clone();
  if (managed->deleter != nullptr) managed->deleter(managed);
  return copy;
}
#else
inline absl::StatusOr<DLManagedTensorVersioned*> ToDLPackVersioned(const at::Tensor&) {
  return VersionedDLPackAvailable("tsb_tensor_to_dlpack_versioned");
}

inline absl::StatusOr<at::Tensor> FromDLPackVersioned(
    DLManagedTensorVersioned*, absl::FunctionRef<absl::Status(const DLTensor&)>) {
  return VersionedDLPackAvailable("tsb_tensor_from_dlpack_versioned");
}
#endif

// An int above INT64_MAX. LibTorch 2.9 gave IValue the tag UInt for one
// (pytorch/pytorch#160102; absent from 2.6's ivalue.h, present in 2.14's):
// IValue(uint64_t) takes it above INT64_MAX, isInt() is false for it and
// toUInt() reads it. Before, no IValue holds one, and none is ever made by
// wrapping it to a negative int.
inline constexpr bool kHasUInt = TSB_TORCH_AT_LEAST(2, 9);
inline constexpr const char* kUIntRelease = "2.9";

// Whether `value` is a UInt: isUnsigned() is also true of an Int >= 0.
inline bool IsUInt(const c10::IValue& value) {
#if TSB_TORCH_AT_LEAST(2, 9)
  return !value.isInt() && value.isUnsigned();
#else
  (void)value;
  return false;
#endif
}

// A UInt's value; call only when IsUInt(value).
inline uint64_t ToUInt(const c10::IValue& value) {
#if TSB_TORCH_AT_LEAST(2, 9)
  return value.toUInt();
#else
  (void)value;
  return 0;
#endif
}

// *out = the IValue of `u` > INT64_MAX; false when this LibTorch has none.
inline bool MakeUInt(uint64_t u, c10::IValue* out) {
#if TSB_TORCH_AT_LEAST(2, 9)
  *out = c10::IValue(u);
  return true;
#else
  (void)u;
  (void)out;
  return false;
#endif
}

}  // namespace tsb::compat

#endif  // TSBRIDGE_CORE_COMPAT_TORCH_COMPAT_H_
