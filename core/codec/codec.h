// The codec interface: how one kind of TorchScript type crosses the boundary.
//
// A codec serves one LibTorch TypeKind (IntType, ListType, TupleType, ...).
// The core registers its builtin codecs through the same interface that
// plugins use for Tuple, NamedTuple, Optional and Union, so the interface is
// proven by the builtins themselves. Codecs never throw on bad input: they
// return a status that says what was expected and what was found; containers
// prepend their path segment (tsb::WithPath) when an element fails.
#ifndef TSBRIDGE_CORE_CODEC_CODEC_H_
#define TSBRIDGE_CORE_CODEC_CODEC_H_

#include <cstddef>
#include <string>

#include <ATen/core/ivalue.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/types/type_info.h"
#include "tsbridge/tsbridge.h"

namespace tsb {

class Codec {
 public:
  virtual ~Codec() = default;

  virtual tsb_kind kind() const = 0;
  virtual c10::TypeKind type_kind() const = 0;

  // Abstract kinds (Optional, Union, Any, Scalar) name a set of types: a
  // value of such a static type crosses as its own dynamic type.
  virtual bool is_abstract() const { return false; }

  // The type stored in the registry for `type` (e.g. every refined
  // TensorType maps to the one Tensor type).
  virtual c10::TypePtr Canonical(const c10::TypePtr& type) const { return type; }

  // Extra identity of a type beyond its kind and contained types (the
  // qualified name of named types). Types with equal keys share an index.
  virtual std::string InternName(const c10::Type& type) const;

  // Called once when a type of this kind is interned, after its contained
  // types: validates the type and fills name and field names.
  virtual absl::Status Describe(TypeInfo& info) const;

  // An IValue whose type is `info` -> a boundary value (a new reference).
  // Default: a handle that holds the IValue.
  virtual absl::Status Encode(c10::IValue value, const TypeInfo& info,
                              tsb_any* out) const;

  // A well-formed boundary value of this codec's type -> IValue.
  // Default: the handle's IValue.
  virtual absl::StatusOr<c10::IValue> Decode(const tsb_any& value) const;

  // `value` converted to `expected` (a type of this codec's kind): the same
  // IValue when it already has that type, a converted copy when the
  // conversion is allowed, else a TypeError.
  virtual absl::StatusOr<c10::IValue> Coerce(const c10::IValue& value,
                                             const TypeInfo& expected) const = 0;

  // Sequence protocol for containers; the defaults say "not a container".
  virtual absl::StatusOr<size_t> Length(const c10::IValue& value,
                                        const TypeInfo& info) const;
  virtual absl::Status Item(const c10::IValue& value, const TypeInfo& info,
                            size_t i, tsb_any* out) const;
};

}  // namespace tsb

#endif  // TSBRIDGE_CORE_CODEC_CODEC_H_
