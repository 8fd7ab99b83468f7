// KindCodecs for the abstract kinds Optional[T] and Union[T0, T1, ...].
//
// Both name a set of types: no value ever has them as its type. A value of
// static type Optional[T] or Union[...] crosses as its own dynamic type
// (None, int, Tensor, ...), and coercion picks the member to convert to.
//
// LibTorch 1.13 spells some unions as Optional: Union[int, None] parses to
// Optional[int] (TypeKind::OptionalType, one contained type), while
// Union[int, str, None] stays a Union with a NoneType member. Union members
// are sorted and deduplicated by LibTorch: Union[str, int] is
// Union[int, str], and both spellings share one type index.
#ifndef TSBRIDGE_PLUGINS_OPTIONAL_OPTIONAL_CODECS_H_
#define TSBRIDGE_PLUGINS_OPTIONAL_OPTIONAL_CODECS_H_

#include "tsbridge/plugin/kind_codec.hpp"

namespace tsb {

class OptionalCodec final : public KindCodec {
 public:
  tsb_kind kind() const override { return TSB_KIND_OPTIONAL; }
  c10::TypeKind type_kind() const override { return c10::TypeKind::OptionalType; }
  bool is_abstract() const override { return true; }

  // None stays None; anything else is coerced to T. A direct mismatch names
  // the Optional ("expected Optional[int], got str \"x\""); an error deeper
  // inside T keeps its own path and message.
  absl::StatusOr<c10::IValue> Coerce(const c10::IValue& value,
                                     const TypeInfo& expected) const override;
};

class UnionCodec final : public KindCodec {
 public:
  tsb_kind kind() const override { return TSB_KIND_UNION; }
  c10::TypeKind type_kind() const override { return c10::TypeKind::UnionType; }
  bool is_abstract() const override { return true; }

  // Type-directed, never first-come:
  //  1. the value's own type is a member: the value, unchanged;
  //  2. else every member is tried; exactly one accepting it wins;
  //  3. several accept it: "ambiguous: int 1 matches Union[float, complex]
  //     members float, complex"; a host's untyped value (JSON) is first
  //     taken as what the host reads by itself (NaturalValue: JSON 1 is an
  //     int, [1, 2] a List) and decided again by this rule;
  //  4. none does: "expected Union[int, str], got float 1.5" -- unless
  //     exactly one member failed inside the value (the value had its shape:
  //     a List for a List member), whose error with its path is clearer.
  absl::StatusOr<c10::IValue> Coerce(const c10::IValue& value,
                                     const TypeInfo& expected) const override;
};

}  // namespace tsb

#endif  // TSBRIDGE_PLUGINS_OPTIONAL_OPTIONAL_CODECS_H_
