#include "core/value/containers.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/types/type_parser.h"
#include "core/types/type_registry.h"
#include "core/value/convert.h"
#include "core/value/nesting.h"
#include "core/object/object.h"

namespace tsb {

namespace {

// Writes one dict entry, of a dict whose key and value types are given, as
// two new references; leaks nothing on failure.
absl::Status EntryOut(const TypeInfo& key_type, const TypeInfo& value_type,
                      const c10::impl::GenericDict::iterator& entry,
                      tsb_any* key, tsb_any* value) {
  tsb_any k, v;
  TSB_RETURN_IF_ERROR(ToBoundary(entry->key(), key_type, &k));
  absl::Status status = ToBoundary(entry->value(), value_type, &v);
  if (!status.ok()) {
    Release(k);
    return status;
  }
  *key = k;
  *value = v;
  return absl::OkStatus();
}

// Whether a value of type `have` is kept as it is under the abstract
// `element` (a Tensor under Optional[Tensor]). A builder asks once per item
// with the same two types, and LibTorch's isSubtypeOf is not cheap; types
// never change once interned, so each thread keeps its last answers.
bool CrossesAsItself(const TypeInfo& have, const TypeInfo& element) {
  struct Answer {
    int32_t have = TSB_TYPE_INVALID, element = TSB_TYPE_INVALID;
    bool yes = false;
  };
  thread_local std::array<Answer, 64> answers;
  Answer& a = answers[(static_cast<uint32_t>(have.index) * 31u +
                       static_cast<uint32_t>(element.index)) % answers.size()];
  if (a.have != have.index || a.element != element.index) {
    a = {have.index, element.index,
         element.codec->is_abstract() && have.type->isSubtypeOf(*element.type)};
  }
  return a.yes;
}

}  // namespace

absl::StatusOr<c10::IValue> ItemAs(const tsb_any& item, const TypeInfo& element) {
  // A well-formed item of the element's own index (a host that built it
  // typed): its value as it is, with no lookup. Else checked below.
  if (item.type_index == element.index) {
    if (item.flags == TSB_FLAG_HANDLE && item.u.obj != nullptr &&
        item.u.obj->type_index == item.type_index) {
      return item.u.obj->value;
    }
    c10::IValue leaf;
    if (item.flags == 0 && DecodeInlineLeaf(item, &leaf)) return leaf;
    if (IsBorrowedTensor(item)) return c10::IValue(BorrowedTensor(item));
    if (BorrowedStrValue(item, &leaf)) return leaf;
  }
  BorrowedValue b;
  TSB_RETURN_IF_ERROR(Borrow(item, &b));
  if (b.type == &element || CrossesAsItself(*b.type, element)) return *b.value;
  return CoerceTo(*b.value, element);
}

namespace {

// List[element], typed from the element's fixed index, not from a value.
absl::StatusOr<const TypeInfo*> ListOf(int32_t element) {
  TSB_ASSIGN_OR_RETURN(const TypeInfo* info, FindType(element));
  return TypeRegistry::Global().InternOf(c10::TypeKind::ListType, {info});
}

// A new List[T] from a host buffer, in one allocation. c10::List has no
// bulk constructor that skips push_back (an out-of-line call per element),
// so it grows by cache-sized chunks that are then overwritten in place.
template <typename T>
absl::Status ListFromBuffer(const T* data, size_t n, int32_t element, tsb_any* out) {
  TSB_ASSIGN_OR_RETURN(const TypeInfo* type, ListOf(element));
  constexpr size_t kChunk = 4096;  // 64 KiB of IValues: still in cache when overwritten
  c10::List<T> list;
  list.reserve(n);
  for (size_t i = 0; i < n; i += kChunk) {
    const size_t end = std::min(n, i + kChunk);
    list.resize(end);
    std::copy(data + i, data + end, list.begin() + i);
  }
  return type->codec->Encode(c10::IValue(std::move(list)), *type, out);
}

}  // namespace

bool ElementsOf(const c10::IValue& value, const TypeInfo& type, Elements* out) {
  if (type.kind == TSB_KIND_LIST && value.isList()) {
    out->values = value.toListRef();
    out->list_element = &ContainedType(type, 0);
    return true;
  }
  if ((type.kind == TSB_KIND_TUPLE || type.kind == TSB_KIND_NAMEDTUPLE) && value.isTuple() &&
      value.toTupleRef().size() == type.contained.size()) {
    out->values = value.toTupleRef().elements().asArrayRef();
    return true;
  }
  return false;
}

absl::StatusOr<size_t> ContainerLength(const c10::IValue& value, const TypeInfo& type) {
  if (Elements elements; ElementsOf(value, type, &elements)) return elements.values.size();
  return type.codec->Length(value, type);
}

absl::Status ContainerItems(const c10::IValue& value, const TypeInfo& type, size_t n,
                            tsb_any* out) {
  Elements elements;
  const bool direct = ElementsOf(value, type, &elements);
  ReleaseOnError written(out, 0);
  for (size_t i = 0; i < n; ++i) {
    // What ListCodec's and TupleCodec's Item write, with one lookup per field.
    TSB_RETURN_IF_ERROR(direct ? ToBoundary(elements.values[i], elements.TypeOf(type, i),
                                            &out[i])
                               : type.codec->Item(value, type, i, &out[i]));
    written.Grow();
  }
  written.Disarm();
  return absl::OkStatus();
}

absl::Status DictItem(const c10::IValue& dict, const TypeInfo& type, size_t i, tsb_any* key,
                      tsb_any* value) {
  c10::impl::GenericDict d = dict.toGenericDict();
  if (i >= d.size()) {
    return absl::OutOfRangeError(absl::StrCat("index ", i, " out of range for ",
                                              DescribeValue(dict)));
  }
  return EntryOut(ContainedType(type, 0), ContainedType(type, 1),
                  std::next(d.begin(), static_cast<ptrdiff_t>(i)), key, value);
}

absl::Status DictItems(const c10::IValue& dict, const TypeInfo& type, size_t n,
                       tsb_any* keys, tsb_any* values) {
  c10::impl::GenericDict d = dict.toGenericDict();
  const TypeInfo& key_type = ContainedType(type, 0);
  const TypeInfo& value_type = ContainedType(type, 1);
  ReleaseOnError written_keys(keys, 0), written_values(values, 0);
  auto entry = d.begin();
  for (size_t i = 0; i < n; ++i, ++entry) {
    TSB_RETURN_IF_ERROR(EntryOut(key_type, value_type, entry, &keys[i], &values[i]));
    written_keys.Grow();
    written_values.Grow();
  }
  written_keys.Disarm();
  written_values.Disarm();
  return absl::OkStatus();
}

absl::Status DictLookup(const c10::IValue& dict, const TypeInfo& type, const c10::IValue& key,
                        tsb_any* out) {
  const TypeInfo& key_type = ContainedType(type, 0);
  absl::StatusOr<c10::IValue> k = CoerceTo(key, key_type);
  if (!k.ok()) return WithPath(k.status(), "key");
  c10::impl::GenericDict d = dict.toGenericDict();
  auto found = d.find(*k);
  if (found == d.end()) {
    return absl::NotFoundError(absl::StrCat(DescribeValue(*k), " is not a key of ",
                                            DescribeValue(dict)));
  }
  return ToBoundary(found->value(), ContainedType(type, 1), out);
}

absl::Status NewList(const int64_t* data, size_t n, tsb_any* out) {
  return ListFromBuffer(data, n, TSB_TYPE_INT, out);
}

absl::Status NewList(const double* data, size_t n, tsb_any* out) {
  return ListFromBuffer(data, n, TSB_TYPE_FLOAT, out);
}

absl::Status NewList(const bool* data, size_t n, tsb_any* out) {
  return ListFromBuffer(data, n, TSB_TYPE_BOOL, out);
}

absl::Status NewList(int32_t element_type, const tsb_any* items, size_t n, tsb_any* out) {
  TSB_ASSIGN_OR_RETURN(const TypeInfo* element, FindType(element_type));
  // Typed from the element type the host names, not from the values.
  TSB_ASSIGN_OR_RETURN(const TypeInfo* list_type,
                       TypeRegistry::Global().InternOf(c10::TypeKind::ListType, {element}));
  c10::impl::GenericList list(element->type);
  list.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    absl::StatusOr<c10::IValue> item = ItemAs(items[i], *element);
    absl::Status status = item.ok() ? CheckDepth(*item, kMaxValueDepth - 1) : item.status();
    if (!status.ok()) return WithPath(std::move(status), IndexSegment(i));
    list.push_back(*std::move(item));
  }
  return list_type->codec->Encode(c10::IValue(std::move(list)), *list_type, out);
}

namespace {

// The n items, borrowed, and their own types: a tuple typed from its items'
// type indices, with no type inferred from values.
absl::Status BorrowItems(const tsb_any* items, size_t n, std::vector<c10::IValue>& elements,
                         absl::InlinedVector<const TypeInfo*, 8>& types) {
  elements.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    BorrowedValue item;
    absl::Status status = Borrow(items[i], &item);
    if (status.ok()) status = CheckDepth(*item.value, kMaxValueDepth - 1);
    if (!status.ok()) return WithPath(status, IndexSegment(i));
    elements.push_back(*item.value);
    types.push_back(item.type);
  }
  return absl::OkStatus();
}

// "__torch__.Point": identifiers joined by dots.
absl::Status CheckQualifiedName(absl::string_view name) {
  for (absl::string_view atom : absl::StrSplit(name, '.')) {
    if (!IsIdentifier(atom)) {
      return WithPath(absl::InvalidArgumentError(absl::StrCat(
                          "expected a qualified name (identifiers joined by '.'), got \"",
                          name, "\"")),
                      "qualified_name");
    }
  }
  return absl::OkStatus();
}

// Each field name an identifier, none twice.
absl::StatusOr<std::vector<std::string>> FieldNamesOf(const char* const* field_names,
                                                      size_t n) {
  std::vector<std::string> names;
  names.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const std::string segment = absl::StrCat("field_names[", i, "]");
    if (field_names[i] == nullptr) {
      return WithPath(absl::InvalidArgumentError("expected a field name, got NULL"), segment);
    }
    absl::string_view name = field_names[i];
    if (!IsIdentifier(name)) {
      return WithPath(absl::InvalidArgumentError(absl::StrCat(
                          "expected an identifier (letters, digits and _, not starting "
                          "with a digit), got \"", name, "\"")),
                      segment);
    }
    auto seen = std::find(names.begin(), names.end(), name);
    if (seen != names.end()) {
      return WithPath(absl::InvalidArgumentError(absl::StrCat(
                          "expected a field name not used before, got \"", name,
                          "\", already field_names[", seen - names.begin(), "]")),
                      segment);
    }
    names.emplace_back(name);
  }
  return names;
}

}  // namespace

absl::Status NewTuple(const tsb_any* items, size_t n, tsb_any* out) {
  std::vector<c10::IValue> elements;
  absl::InlinedVector<const TypeInfo*, 8> types;
  TSB_RETURN_IF_ERROR(BorrowItems(items, n, elements, types));
  TSB_ASSIGN_OR_RETURN(const TypeInfo* type,
                       TypeRegistry::Global().InternOf(c10::TypeKind::TupleType, types));
  return type->codec->Encode(
      c10::ivalue::Tuple::createNamed(std::move(elements), type->type), *type, out);
}

absl::Status NewNamedTuple(const char* qualified_name, const char* const* field_names,
                           const tsb_any* items, size_t n, tsb_any* out) {
  c10::optional<c10::QualifiedName> name;
  if (qualified_name != nullptr) {
    TSB_RETURN_IF_ERROR(CheckQualifiedName(qualified_name));
    name = c10::QualifiedName(qualified_name);
  }
  TSB_ASSIGN_OR_RETURN(std::vector<std::string> fields, FieldNamesOf(field_names, n));
  std::vector<c10::IValue> elements;
  absl::InlinedVector<const TypeInfo*, 8> types;
  TSB_RETURN_IF_ERROR(BorrowItems(items, n, elements, types));
  std::vector<c10::TypePtr> field_types;
  field_types.reserve(n);
  for (const TypeInfo* t : types) field_types.push_back(t->type);
  TSB_ASSIGN_OR_RETURN(const TypeInfo* type,
                       TypeRegistry::Global().Intern(
                           c10::TupleType::createNamed(name, fields, field_types)));
  return type->codec->Encode(
      c10::ivalue::Tuple::createNamed(std::move(elements), type->type), *type, out);
}

absl::Status NewTypedTuple(int32_t tuple_type, const tsb_any* items, size_t n, tsb_any* out) {
  TSB_ASSIGN_OR_RETURN(const TypeInfo* type, FindType(tuple_type));
  if (type->kind != TSB_KIND_TUPLE && type->kind != TSB_KIND_NAMEDTUPLE) {
    return TypeError(absl::StrCat("expected a Tuple or NamedTuple type, got ", type->annotation));
  }
  if (n != type->contained.size()) {
    return TypeError(absl::StrCat("expected ", type->contained.size(), " items for ",
                                  type->annotation, ", got ", n));
  }
  std::vector<c10::IValue> elements;
  elements.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    absl::StatusOr<c10::IValue> item = ItemAs(items[i], ContainedType(*type, i));
    absl::Status status = item.ok() ? CheckDepth(*item, kMaxValueDepth - 1) : item.status();
    if (!status.ok()) {
      return WithPath(std::move(status), type->kind == TSB_KIND_NAMEDTUPLE
                                         ? FieldSegment(type->field_names[i])
                                         : IndexSegment(i));
    }
    elements.push_back(*std::move(item));
  }
  return type->codec->Encode(
      c10::ivalue::Tuple::createNamed(std::move(elements), type->type), *type, out);
}

namespace {

// The kinds LibTorch can hash as a dict key (c10::DictType::create's list).
bool IsDictKeyKind(tsb_kind kind) {
  switch (kind) {
    case TSB_KIND_STR:
    case TSB_KIND_INT:
    case TSB_KIND_FLOAT:
    case TSB_KIND_COMPLEX:
    case TSB_KIND_BOOL:
    case TSB_KIND_TENSOR:
    case TSB_KIND_DEVICE:
      return true;
    default:
      return false;
  }
}

constexpr absl::string_view kDictKeyKinds = "str, int, float, complex, bool, Tensor or Device";

// The key type of a Dict built from `keys`: `key_type` itself, or with Any
// the keys' own type, which every key must share. A type LibTorch cannot
// hash is refused here, with the key's path, not by LibTorch's DictType.
absl::StatusOr<const TypeInfo*> DictKeyType(int32_t key_type, const tsb_any* keys, size_t n) {
  TSB_ASSIGN_OR_RETURN(const TypeInfo* key, FindType(key_type));
  if (key->kind != TSB_KIND_ANY) {
    if (IsDictKeyKind(key->kind)) return key;
    return TypeError(absl::StrCat("expected a dict key type (", kDictKeyKinds, "), got ",
                                  key->annotation));
  }
  const TypeInfo* first = nullptr;
  for (size_t i = 0; i < n; ++i) {
    BorrowedValue given;
    absl::Status status = Borrow(keys[i], &given);
    if (!status.ok()) return WithPath(status, absl::StrCat("keys[", i, "]"));
    const TypeInfo* type = given.type;
    if (type->kind == TSB_KIND_UINT) {  // an int above INT64_MAX is still an int
      TSB_ASSIGN_OR_RETURN(type, FindType(TSB_TYPE_INT));
    }
    if (!IsDictKeyKind(type->kind)) {
      return WithPath(TypeError(absl::StrCat("expected a dict key (", kDictKeyKinds, "), got ",
                                             DescribeValue(*given.value))),
                      absl::StrCat("keys[", i, "]"));
    }
    if (first == nullptr) {
      first = type;
    } else if (type != first) {
      return WithPath(TypeError(absl::StrCat("expected a dict key of type ", first->annotation,
                                             " (the type of keys[0]), got ",
                                             DescribeValue(*given.value))),
                      absl::StrCat("keys[", i, "]"));
    }
  }
  return first != nullptr ? first : key;  // an empty Dict[Any, V] stays one
}

}  // namespace

absl::Status NewDict(int32_t key_type, int32_t value_type, const tsb_any* keys,
                     const tsb_any* values, size_t n, tsb_any* out) {
  TSB_ASSIGN_OR_RETURN(const TypeInfo* key, DictKeyType(key_type, keys, n));
  TSB_ASSIGN_OR_RETURN(const TypeInfo* value, FindType(value_type));
  // Interning first lets LibTorch reject an unsupported key type; a dict
  // type seen before is found by its parts' indices alone.
  TSB_ASSIGN_OR_RETURN(const TypeInfo* dict_type,
                       TypeRegistry::Global().InternOf(c10::TypeKind::DictType, {key, value}));
  c10::impl::GenericDict dict(key->type, value->type);
  dict.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    // The path names the entry by its key, as every host does: key "a".
    absl::StatusOr<c10::IValue> k;
    c10::IValue borrowed;
    if (key->index == TSB_TYPE_STR && BorrowedStrValue(keys[i], &borrowed)) {
      k = std::move(borrowed);  // a host's str key: no lookup
    } else {
      BorrowedValue given;
      absl::Status status = Borrow(keys[i], &given);
      if (!status.ok()) return WithPath(status, absl::StrCat("keys[", i, "]"));
      if (given.type != key) {
        k = CoerceTo(*given.value, *key);
        if (!k.ok()) return WithPath(k.status(), KeySegmentOf(*given.value));
      } else if (given.value == &given.scratch) {
        k = std::move(given.scratch);
      } else {
        k = *given.value;
      }
    }
    absl::StatusOr<c10::IValue> v = ItemAs(values[i], *value);
    absl::Status depth = v.ok() ? CheckDepth(*v, kMaxValueDepth - 1) : v.status();
    if (!depth.ok()) return WithPath(std::move(depth), KeySegmentOf(*k));
    dict.insert_or_assign(*std::move(k), *std::move(v));
  }
  return dict_type->codec->Encode(c10::IValue(std::move(dict)), *dict_type, out);
}

}  // namespace tsb
