// The C++ side of tsbridge's type system, for plugins that add a kind of
// TorchScript type (plugins/tuple, plugins/optional) and for the core itself.
//
// A KindCodec serves one LibTorch TypeKind (IntType, ListType, TupleType,
// ...). The core registers its builtin codecs through the same interface that
// plugins use, so the interface is proven by the builtins themselves. Codecs
// never throw on bad input: they return a status that says what was expected
// and what was found; containers prepend their path segment (tsb::WithPath)
// when an element fails. Everything declared here is implemented in
// libtsbridge.so; it is C++ and crosses only to plugins whose platform tag
// matched the core's (see tsbridge/plugin.h). The interface itself, which
// the type registry implements, is in type_info.hpp; the conversions here
// are implemented by the value layer (docs/architecture.md, "The SDK seam").
#ifndef TSBRIDGE_KIND_CODEC_HPP_
#define TSBRIDGE_KIND_CODEC_HPP_

#include <string>

#include <ATen/core/ivalue.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tsbridge/plugin/errors.hpp"  // TypeError, WithPath, CatchAll, TSB_RETURN_IF_ERROR
#include "tsbridge/plugin/type_info.hpp"  // TypeInfo, KindCodec, FindType
#include "tsbridge/tsbridge.h"

namespace tsb {

// ------------------------------------------------------------ conversion

// The type a value carries at run time (List[int], not Optional[List[int]]).
absl::StatusOr<const TypeInfo*> TypeOfValue(const c10::IValue& value);

// IValue -> boundary value (a new reference in *out). `static_type` is the
// type the context promises (a List's element type, a schema's return
// type); an abstract one (Optional, Union, Any, Scalar) resolves to the
// value's own type.
absl::Status ToBoundary(c10::IValue value, const TypeInfo& static_type,
                        tsb_any* out);
absl::Status ToBoundary(c10::IValue value, tsb_any* out);

// `value` converted to `expected`, checked all the way down.
absl::StatusOr<c10::IValue> CoerceTo(const c10::IValue& value,
                                     const TypeInfo& expected);

// True when `value` already has `type`, one of the core's leaf types at its
// fixed index (None, bool, int, float, str, Tensor), so that CoerceTo would
// return it unchanged. A container checks such items with it and keeps
// them, with no registry lookup, virtual call or copy; false for every
// other type (then call CoerceTo).
inline bool IsLeafOfType(const c10::IValue& value, const TypeInfo& type) noexcept {
  switch (type.index) {
    case TSB_TYPE_NONE: return value.isNone();
    case TSB_TYPE_BOOL: return value.isBool();
    case TSB_TYPE_INT: return value.isInt();
    case TSB_TYPE_FLOAT: return value.isDouble();
    case TSB_TYPE_STR: return value.isString();
    case TSB_TYPE_TENSOR: return value.isTensor();
    default: return false;
  }
}

// A borrowed tensor entry (TSB_FLAG_BORROWED, ABI 1.9) naming `tensor`,
// which the caller keeps alive while the entry is used: how a host's torch
// companion passes its own tensors to a builder or a call with no handle
// each. Any function taking a value takes it; it holds no reference.
inline tsb_any BorrowTensor(const at::Tensor& tensor) noexcept {
  tsb_any out;
  out.type_index = TSB_TYPE_TENSOR;
  out.flags = TSB_FLAG_BORROWED;
  out.u.borrowed = tensor.unsafeGetTensorImpl();
  return out;
}
// Whether `v` is a well-formed borrowed tensor entry (what BorrowTensor
// writes), read with no lookup.
inline bool IsBorrowedTensor(const tsb_any& v) noexcept {
  return v.flags == TSB_FLAG_BORROWED && v.type_index == TSB_TYPE_TENSOR && v.u.borrowed != nullptr;
}
// The tensor a borrowed tensor entry names (a new reference to it).
inline at::Tensor BorrowedTensor(const tsb_any& entry) {
  auto* impl = static_cast<c10::TensorImpl*>(const_cast<void*>(entry.u.borrowed));
  return at::Tensor(
      c10::intrusive_ptr<c10::TensorImpl, c10::UndefinedTensorImpl>::unsafe_reclaim_from_nonowning(
          impl));
}

// "str \"x\"", "int 3", "List[int] of length 3": what an error says it found.
std::string DescribeValue(const c10::IValue& value);
// "expected int, got str \"x\"" as a type error.
absl::Status Mismatch(const TypeInfo& expected, const c10::IValue& found);

}  // namespace tsb

#endif  // TSBRIDGE_KIND_CODEC_HPP_
