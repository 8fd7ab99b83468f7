#include "plugins/tuple/tuple_codec.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <ATen/core/function_schema.h>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tsbridge/plugin/untyped.hpp"

namespace tsb {
namespace {

const c10::TupleType& TupleTypeOf(const TypeInfo& info) {
  return info.type->expectRef<c10::TupleType>();
}

std::vector<std::string> FieldNames(const c10::TupleType& type) {
  std::vector<std::string> names;
  if (auto fields = type.names()) {
    for (c10::string_view f : *fields) names.emplace_back(f.data(), f.size());
  }
  return names;
}

// A type with every refined TensorType (Float(2, 3) from a value) replaced
// by plain Tensor; the same pointer when there is none.
c10::TypePtr WithPlainTensors(const c10::TypePtr& type) {
  if (type->kind() == c10::TypeKind::TensorType) return c10::TensorType::get();
  c10::ArrayRef<c10::TypePtr> contained = type->containedTypes();
  std::vector<c10::TypePtr> plain(contained.begin(), contained.end());
  bool changed = false;
  for (c10::TypePtr& t : plain) {
    c10::TypePtr p = WithPlainTensors(t);
    changed |= p != t;
    t = std::move(p);
  }
  return changed ? type->createWithContained(std::move(plain)) : type;
}

// "tsbridge.tensor_pair(first, second)": what identifies a record.
std::string RecordSignature(const c10::TupleType& type) {
  std::string name = type.name() ? type.name()->qualifiedName() : std::string();
  if (type.schema() == nullptr) return name;
  return absl::StrCat(name, "(", absl::StrJoin(FieldNames(type), ", "), ")");
}

// How element i is named in an error path.
std::string Segment(const TypeInfo& tuple, size_t i) {
  if (tuple.kind == TSB_KIND_NAMEDTUPLE) {
    return FieldSegment(tuple.field_names[i]);
  }
  return IndexSegment(i);
}

std::string Elements(size_t n) {
  return absl::StrCat(n, n == 1 ? " element" : " elements");
}

// From a host's untyped sequence (a JSON array): exactly the arity, each
// item coerced to its element.
absl::StatusOr<c10::IValue> FromItems(const c10::IValue& value,
                                      std::vector<c10::IValue> items,
                                      const TypeInfo& expected) {
  const size_t n = expected.contained.size();
  if (items.size() != n) {
    return TypeError(absl::StrCat("expected ", expected.annotation, ", got ",
                                  DescribeValue(value), ", which needs ", Elements(n)));
  }
  for (size_t i = 0; i < n; ++i) {
    TSB_ASSIGN_OR_RETURN(const TypeInfo* element, FindType(expected.contained[i]));
    absl::StatusOr<c10::IValue> item = CoerceTo(items[i], *element);
    if (!item.ok()) return WithPath(item.status(), Segment(expected, i));
    items[i] = *std::move(item);
  }
  return c10::IValue(c10::ivalue::Tuple::createNamed(std::move(items), expected.type));
}

// A NamedTuple from a host's untyped record (a JSON object): its fields in
// any order; a field with a default (from the NamedTuple's Python
// definition) may be left out; an unknown field is an error, not ignored.
absl::StatusOr<c10::IValue> FromFields(
    const std::vector<std::pair<std::string, c10::IValue>>& fields,
    const TypeInfo& expected) {
  const std::vector<std::string>& names = expected.field_names;
  for (const auto& [key, unused] : fields) {
    if (std::find(names.begin(), names.end(), key) == names.end()) {
      return TypeError(absl::StrCat(expected.annotation, " has no field '", key,
                                    "' (fields: ", absl::StrJoin(names, ", "), ")"));
    }
  }
  const c10::FunctionSchema* schema = TupleTypeOf(expected).schema().get();
  std::vector<c10::IValue> elements;
  elements.reserve(names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    auto it = std::find_if(fields.begin(), fields.end(),
                           [&](const auto& field) { return field.first == names[i]; });
    if (it == fields.end()) {
      if (schema != nullptr && i < schema->arguments().size() &&
          schema->arguments()[i].default_value()) {
        elements.push_back(*schema->arguments()[i].default_value());
        continue;
      }
      return TypeError(absl::StrCat("missing field '", names[i], "' of ",
                                    expected.annotation));
    }
    TSB_ASSIGN_OR_RETURN(const TypeInfo* element, FindType(expected.contained[i]));
    absl::StatusOr<c10::IValue> item = CoerceTo(it->second, *element);
    if (!item.ok()) return WithPath(item.status(), Segment(expected, i));
    elements.push_back(*std::move(item));
  }
  return c10::IValue(c10::ivalue::Tuple::createNamed(std::move(elements), expected.type));
}

// A Dict[str, Any] (a host's untyped record, tsb_dict_new) as fields in
// its order; nullopt for anything else.
std::optional<std::vector<std::pair<std::string, c10::IValue>>> StrKeyedFields(
    const c10::IValue& value) {
  if (!value.isGenericDict()) return std::nullopt;
  const c10::impl::GenericDict dict = value.toGenericDict();
  if (dict.keyType()->kind() != c10::TypeKind::StringType ||
      dict.valueType()->kind() != c10::TypeKind::AnyType) {
    return std::nullopt;
  }
  std::vector<std::pair<std::string, c10::IValue>> fields;
  fields.reserve(dict.size());
  for (const auto& entry : dict) fields.emplace_back(entry.key().toStringRef(), entry.value());
  return fields;
}

}  // namespace

c10::TypePtr TupleCodec::Canonical(const c10::TypePtr& type) const {
  return WithPlainTensors(type);
}

std::string TupleCodec::InternName(const c10::Type& type) const {
  const auto* tuple = type.castRaw<c10::TupleType>();
  return tuple == nullptr ? std::string() : RecordSignature(*tuple);
}

absl::Status TupleCodec::Describe(TypeInfo& info) const {
  const c10::TupleType& tuple = TupleTypeOf(info);
  if (tuple.schema() == nullptr) return absl::OkStatus();  // a plain Tuple
  std::vector<std::string> fields = FieldNames(tuple);
  if (fields.size() != info.contained.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "NamedTuple ", RecordSignature(tuple), " has ", fields.size(),
        " field names for ", Elements(info.contained.size())));
  }
  absl::flat_hash_set<absl::string_view> seen;
  for (const std::string& field : fields) {
    if (field.empty() || !seen.insert(field).second) {
      return absl::InvalidArgumentError(absl::StrCat(
          "NamedTuple ", RecordSignature(tuple),
          ": field names must be unique and non-empty"));
    }
  }
  info.kind = TSB_KIND_NAMEDTUPLE;
  if (tuple.name()) info.name = tuple.name()->qualifiedName();
  info.field_names = std::move(fields);
  return absl::OkStatus();
}

absl::StatusOr<c10::IValue> TupleCodec::Coerce(const c10::IValue& value,
                                               const TypeInfo& expected) const {
  if (!value.isTuple()) {
    if (auto items = UntypedItems(value)) return FromItems(value, *std::move(items), expected);
    // A host's untyped List (tsb_list_new with TSB_TYPE_ANY) is a sequence
    // too; a typed List[int] stays a List, as in TorchScript.
    if (value.isList() && value.toList().elementType()->kind() == c10::TypeKind::AnyType) {
      return FromItems(value, value.toListRef().vec(), expected);
    }
    if (expected.kind == TSB_KIND_NAMEDTUPLE) {
      if (auto fields = UntypedFields(value)) return FromFields(*fields, expected);
      if (auto fields = StrKeyedFields(value)) return FromFields(*fields, expected);
    }
    return Mismatch(expected, value);
  }
  const c10::ivalue::Tuple& tuple = value.toTupleRef();
  if (expected.kind == TSB_KIND_NAMEDTUPLE && tuple.type()->schema() != nullptr &&
      !tuple.type()->name() && *tuple.type() != *expected.type) {
    // A nameless record (a host's, tsb_tuple_new_named without a name) is
    // the record its field names make: by name, as a host's dict is.
    std::vector<std::string> names = FieldNames(*tuple.type());
    std::vector<std::pair<std::string, c10::IValue>> fields;
    fields.reserve(names.size());
    for (size_t i = 0; i < names.size(); ++i) {
      fields.emplace_back(std::move(names[i]), tuple.elements()[i]);
    }
    return FromFields(fields, expected);
  }
  const size_t n = expected.contained.size();
  if (tuple.size() != n) {
    return TypeError(absl::StrCat("expected ", expected.annotation, " of ",
                                  Elements(n), ", got ", DescribeValue(value)));
  }

  // Only a NamedTuple needs the value's own type: an unnamed tuple computes
  // it from its elements (and caches it unsynchronised), so skip it when we can.
  bool same_type = true;
  if (expected.kind == TSB_KIND_NAMEDTUPLE) {
    c10::TupleTypePtr have = tuple.type();
    same_type = have.get() == expected.type.get() || *have == *expected.type;
    if (!same_type && have->schema() != nullptr) {
      // Another record is never converted, even with the same elements.
      const c10::TupleType& want = TupleTypeOf(expected);
      if (have->name() != want.name()) return Mismatch(expected, value);
      if (RecordSignature(*have) != RecordSignature(want)) {
        return TypeError(absl::StrCat("expected ", RecordSignature(want), ", got ",
                                      RecordSignature(*have)));
      }
    }
  }

  // Copy the elements only once one of them changes.
  const auto& elements = tuple.elements();
  std::vector<c10::IValue> coerced;
  bool changed = false;
  for (size_t i = 0; i < n; ++i) {
    TSB_ASSIGN_OR_RETURN(const TypeInfo* element, FindType(expected.contained[i]));
    if (IsLeafOfType(elements[i], *element)) {  // kept as it is: no copy to compare
      if (changed) coerced.push_back(elements[i]);
      continue;
    }
    absl::StatusOr<c10::IValue> item = CoerceTo(elements[i], *element);
    if (!item.ok()) return WithPath(item.status(), Segment(expected, i));
    if (!changed && !item->isSameIdentity(elements[i])) {
      changed = true;
      coerced.reserve(n);
      coerced.assign(elements.begin(), elements.begin() + static_cast<ptrdiff_t>(i));
    }
    if (changed) coerced.push_back(*std::move(item));
  }
  if (!changed && same_type) return value;  // already what was asked: share
  if (!changed) coerced = elements.vec();
  // The new tuple carries `expected` as its type: a NamedTuple keeps its
  // name and fields, and a Tuple[Optional[int]] stays one (no lazy
  // element-derived type).
  return c10::IValue(c10::ivalue::Tuple::createNamed(std::move(coerced), expected.type));
}

absl::StatusOr<size_t> TupleCodec::Length(const c10::IValue& value,
                                          const TypeInfo&) const {
  return value.toTupleRef().size();
}

absl::Status TupleCodec::Item(const c10::IValue& value, const TypeInfo& info,
                              size_t i, tsb_any* out) const {
  const auto& elements = value.toTupleRef().elements();
  if (i >= elements.size() || i >= info.contained.size()) {
    return absl::OutOfRangeError(absl::StrCat("index ", i, " out of range for ",
                                              info.annotation, " of ",
                                              Elements(elements.size())));
  }
  TSB_ASSIGN_OR_RETURN(const TypeInfo* element, FindType(info.contained[i]));
  return ToBoundary(elements[i], *element, out);
}

}  // namespace tsb
