// The interface a kind of TorchScript type is served through: TypeInfo,
// KindCodec and FindType. The type registry (core/types) implements it and
// holds the codecs; the conversions over it are in kind_codec.hpp, which
// includes this header and is what a plugin includes. Implemented in
// libtsbridge.so; C++, crossing only to plugins whose platform tag matched
// the core's (see tsbridge/plugin.h).
#ifndef TSBRIDGE_PLUGIN_TYPE_INFO_HPP_
#define TSBRIDGE_PLUGIN_TYPE_INFO_HPP_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <ATen/core/ivalue.h>
#include <ATen/core/jit_type.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tsbridge/tsbridge.h"

namespace tsb {

class KindCodec;

// Immutable once published: the ABI hands out pointers into it for the life
// of the process.
struct TypeInfo {
  int32_t index = TSB_TYPE_INVALID;
  tsb_kind kind = TSB_KIND_INVALID;
  c10::TypePtr type;
  std::string annotation;           // "Dict[str, List[int]]"
  std::string name;                 // qualified name of a named type
  std::vector<int32_t> contained;   // element / key, value / members
  std::vector<std::string> field_names;
  std::vector<const char*> field_name_ptrs;  // views of field_names
  std::string provider;             // "core" or the plugin's name
  const KindCodec* codec = nullptr;
};


// ---------------------------------------------------------------- codecs

class KindCodec {
 public:
  virtual ~KindCodec() = default;

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
  // Field by name for types with field names (NamedTuple): the default looks
  // the name up in info.field_names and returns Item() of that index.
  virtual absl::Status Field(const c10::IValue& value, const TypeInfo& info,
                             absl::string_view name, tsb_any* out) const;
};

// The registered type at `index`, or a NOT_FOUND status naming the index.
absl::StatusOr<const TypeInfo*> FindType(int32_t index);

}  // namespace tsb

#endif  // TSBRIDGE_PLUGIN_TYPE_INFO_HPP_
