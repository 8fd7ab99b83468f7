// KindCodec for TorchScript tuples: Tuple[T0, T1, ...] and NamedTuple.
//
// One LibTorch TypeKind (TupleType) covers both; a tuple type with field
// names (TupleType::schema()) is described as TSB_KIND_NAMEDTUPLE with its
// qualified name and field names, any other as TSB_KIND_TUPLE.
#ifndef TSBRIDGE_PLUGINS_TUPLE_TUPLE_CODEC_H_
#define TSBRIDGE_PLUGINS_TUPLE_TUPLE_CODEC_H_

#include <string>

#include "tsbridge/plugin/kind_codec.hpp"

namespace tsb {

class TupleCodec final : public KindCodec {
 public:
  tsb_kind kind() const override { return TSB_KIND_TUPLE; }
  c10::TypeKind type_kind() const override { return c10::TypeKind::TupleType; }

  // Refined tensor element types (from a value's own type) become plain
  // Tensor, so the stored type is the one a schema would spell.
  c10::TypePtr Canonical(const c10::TypePtr& type) const override;
  // Qualified name AND field names: two NamedTuples that share a name but
  // not their fields (two scripted modules, each with its own
  // __torch__.Point) must not share an index.
  std::string InternName(const c10::Type& type) const override;
  absl::Status Describe(TypeInfo& info) const override;

  // Same arity, each element coerced to its type (path "[i]" or
  // "field 'name'"). Shares `value` when nothing changes; otherwise builds a
  // tuple that carries `expected` as its type, so a NamedTuple keeps its
  // name and fields. An unnamed tuple coerces to a NamedTuple (how a host
  // builds one), and so does a nameless NamedTuple, by its field names; a
  // NamedTuple of another name or other fields does not.
  // From a host's untyped values (JSON): a sequence of exactly the arity
  // ("expected Tuple[int, int], got JSON array of 3 elements, which needs 2
  // elements"), and for a NamedTuple also a record with its field names, in
  // any order, a field with a default left out if the host wants.
  absl::StatusOr<c10::IValue> Coerce(const c10::IValue& value,
                                     const TypeInfo& expected) const override;

  absl::StatusOr<size_t> Length(const c10::IValue& value,
                                const TypeInfo& info) const override;
  absl::Status Item(const c10::IValue& value, const TypeInfo& info, size_t i,
                    tsb_any* out) const override;
  // Field(): KindCodec's default (info.field_names, then Item) serves
  // tsb_any_get_field, since Describe fills the field names.
};

}  // namespace tsb

#endif  // TSBRIDGE_PLUGINS_TUPLE_TUPLE_CODEC_H_
