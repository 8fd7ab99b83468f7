// Containers: access, bulk copies, builders and type-directed coercion.
#include <algorithm>
#include <array>
#include <iterator>
#include <vector>

#include "absl/container/inlined_vector.h"

#include "absl/strings/str_cat.h"
#include "core/abi/arguments.h"
#include "core/abi/guard.h"
#include "tsbridge/plugin/kind_codec.hpp"
#include "core/types/type_registry.h"
#include "core/value/flatten.h"
#include "core/value/object.h"

using tsb::TypeInfo;
using tsb::BorrowedValue;
using tsb::abi::BorrowArg;
using tsb::abi::BorrowContainerArg;
using tsb::abi::CheckArg;
using tsb::abi::ContainerArg;
using tsb::abi::Guard;
using tsb::TypedValue;
using tsb::abi::TypedArg;
using tsb::abi::ValueArg;

namespace {

const TypeInfo& Contained(const TypeInfo& type, size_t i) {
  return *tsb::TypeRegistry::Global().Find(type.contained[i]);
}

// Writes one dict entry, of a dict whose key and value types are given, as
// two new references; leaks nothing on failure.
absl::Status EntryOut(const TypeInfo& key_type, const TypeInfo& value_type,
                      const c10::impl::GenericDict::iterator& entry,
                      tsb_any* key, tsb_any* value) {
  tsb_any k, v;
  TSB_RETURN_IF_ERROR(tsb::ToBoundary(entry->key(), key_type, &k));
  absl::Status status = tsb::ToBoundary(entry->value(), value_type, &v);
  if (!status.ok()) {
    tsb::Release(k);
    return status;
  }
  *key = k;
  *value = v;
  return absl::OkStatus();
}

// The elements of a List, or of a Tuple or NamedTuple whose arity is its
// type's, with the type each one has there: kinds whose items are their
// elements under the contained types, so an accessor can write them with
// no virtual Item per element. Empty `elements` and false otherwise (then
// the codec serves).
struct Elements {
  c10::ArrayRef<c10::IValue> values;
  const TypeInfo* list_element = nullptr;  // a List's; else per field

  const TypeInfo& TypeOf(const TypeInfo& container, size_t i) const {
    return list_element != nullptr ? *list_element : Contained(container, i);
  }
};
bool ElementsOf(const c10::IValue& value, const TypeInfo& type, Elements* out) {
  if (type.kind == TSB_KIND_LIST && value.isList()) {
    out->values = value.toListRef();
    out->list_element = &Contained(type, 0);
    return true;
  }
  if ((type.kind == TSB_KIND_TUPLE || type.kind == TSB_KIND_NAMEDTUPLE) && value.isTuple() &&
      value.toTupleRef().size() == type.contained.size()) {
    out->values = value.toTupleRef().elements().asArrayRef();
    return true;
  }
  return false;
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

// A builder's item as `element` wants it: shared when it already has that
// type, or crosses as itself under an abstract one (a Tensor for
// Optional[Tensor], anything for Any); else converted by the element's codec.
absl::StatusOr<c10::IValue> ItemAs(const tsb_any& item, const TypeInfo& element) {
  // A well-formed item of the element's own index (a host that built it
  // typed): its value as it is, with no lookup. Else checked below.
  if (item.type_index == element.index) {
    if (item.flags == TSB_FLAG_HANDLE && item.u.obj != nullptr &&
        item.u.obj->type_index == item.type_index) {
      return item.u.obj->value;
    }
    c10::IValue leaf;
    if (item.flags == 0 && tsb::DecodeInlineLeaf(item, &leaf)) return leaf;
  }
  BorrowedValue b;
  TSB_RETURN_IF_ERROR(tsb::Borrow(item, &b));
  if (b.type == &element || CrossesAsItself(*b.type, element)) return *b.value;
  return tsb::CoerceTo(*b.value, element);
}

// Bulk copy of a List[T] whose element type is `element`.
template <typename T, typename Extract>
tsb_status* CopyList(const tsb_any* list, int32_t element, T* out, size_t n,
                     Extract extract) {
  return Guard([&]() -> absl::Status {
    TSB_ASSIGN_OR_RETURN(TypedValue typed, ContainerArg(list, TSB_KIND_LIST, "list"));
    if (typed.type->contained[0] != element) {
      TSB_ASSIGN_OR_RETURN(const TypeInfo* want, tsb::FindType(element));
      return tsb::TypeError(absl::StrCat("expected List[", want->annotation, "], got ",
                                         tsb::DescribeValue(typed.value)));
    }
    c10::ArrayRef<c10::IValue> items = typed.value.toListRef();
    if (n != items.size()) {
      return absl::OutOfRangeError(absl::StrCat(
          "buffer holds ", n, " elements but the list has ", items.size()));
    }
    if (n > 0) TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    for (size_t i = 0; i < n; ++i) out[i] = extract(items[i]);
    return absl::OkStatus();
  });
}

// List[element], typed from the element's fixed index, not from a value.
absl::StatusOr<const TypeInfo*> ListOf(int32_t element) {
  TSB_ASSIGN_OR_RETURN(const TypeInfo* info, tsb::FindType(element));
  return tsb::TypeRegistry::Global().InternOf(c10::TypeKind::ListType, {info});
}

// A new List[T] from a host buffer, in one allocation. c10::List has no
// bulk constructor that skips push_back (an out-of-line call per element),
// so it grows by cache-sized chunks that are then overwritten in place.
template <typename T>
tsb_status* ListFrom(const T* data, size_t n, int32_t element, tsb_any* out) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    if (n > 0) TSB_RETURN_IF_ERROR(CheckArg(data, "data"));
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
  });
}

}  // namespace

extern "C" {

tsb_status* tsb_any_len(const tsb_any* container, size_t* out) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    BorrowedValue arg;
    TSB_RETURN_IF_ERROR(BorrowArg(container, "container", &arg));
    if (Elements elements; ElementsOf(*arg.value, *arg.type, &elements)) {
      *out = elements.values.size();
      return absl::OkStatus();
    }
    TSB_ASSIGN_OR_RETURN(*out, arg.type->codec->Length(*arg.value, *arg.type));
    return absl::OkStatus();
  });
}

tsb_status* tsb_list_get(const tsb_any* list, size_t i, tsb_any* out) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    BorrowedValue arg;
    TSB_RETURN_IF_ERROR(BorrowArg(list, "list", &arg));
    return arg.type->codec->Item(*arg.value, *arg.type, i, out);
  });
}

tsb_status* tsb_list_get_items(const tsb_any* list, size_t n, tsb_any* out) {
  return Guard([&]() -> absl::Status {
    BorrowedValue arg;
    TSB_RETURN_IF_ERROR(BorrowArg(list, "list", &arg));
    const c10::IValue& iv = *arg.value;
    const TypeInfo* type = arg.type;
    Elements elements;
    const bool direct = ElementsOf(iv, *type, &elements);
    size_t length = elements.values.size();
    if (!direct) {
      TSB_ASSIGN_OR_RETURN(length, type->codec->Length(iv, *type));
    }
    if (n != length) {
      return absl::OutOfRangeError(absl::StrCat("buffer holds ", n, " elements but ",
                                                tsb::DescribeValue(iv), " has ", length));
    }
    if (n == 0) return absl::OkStatus();
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    tsb::ReleaseOnError written(out, 0);
    for (size_t i = 0; i < n; ++i) {
      // What ListCodec's and TupleCodec's Item write, with one lookup per field.
      TSB_RETURN_IF_ERROR(direct ? tsb::ToBoundary(elements.values[i],
                                                   elements.TypeOf(*type, i), &out[i])
                                 : type->codec->Item(iv, *type, i, &out[i]));
      written.Grow();
    }
    written.Disarm();
    return absl::OkStatus();
  });
}

tsb_status* tsb_any_flatten(const tsb_any* value, tsb_any* out, size_t capacity, size_t* n) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(n, "n"));
    if (capacity > 0) TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    BorrowedValue arg;
    TSB_RETURN_IF_ERROR(BorrowArg(value, "value", &arg));
    return tsb::FlattenValue(*arg.value, *arg.type, out, capacity, n);
  });
}

tsb_status* tsb_any_get_field(const tsb_any* value, const char* name, tsb_any* out) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    TSB_RETURN_IF_ERROR(CheckArg(name, "name"));
    TSB_ASSIGN_OR_RETURN(tsb::TypedValue arg, TypedArg(value, "value"));
    const c10::IValue& iv = arg.value;
    const TypeInfo* type = arg.type;
    return type->codec->Field(iv, *type, name, out);
  });
}

tsb_status* tsb_dict_get_item(const tsb_any* dict, size_t i, tsb_any* key, tsb_any* value) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(key, "key"));
    TSB_RETURN_IF_ERROR(CheckArg(value, "value"));
    TSB_ASSIGN_OR_RETURN(TypedValue typed, ContainerArg(dict, TSB_KIND_DICT, "dict"));
    c10::impl::GenericDict d = typed.value.toGenericDict();
    if (i >= d.size()) {
      return absl::OutOfRangeError(absl::StrCat("index ", i, " out of range for ",
                                                tsb::DescribeValue(typed.value)));
    }
    return EntryOut(Contained(*typed.type, 0), Contained(*typed.type, 1),
                    std::next(d.begin(), static_cast<ptrdiff_t>(i)), key, value);
  });
}

tsb_status* tsb_dict_get_items(const tsb_any* dict, size_t n, tsb_any* keys, tsb_any* values) {
  return Guard([&]() -> absl::Status {
    // Borrowed: the walk copies no IValue but the items it hands out.
    BorrowedValue arg;
    TSB_RETURN_IF_ERROR(BorrowContainerArg(dict, TSB_KIND_DICT, "dict", &arg));
    c10::impl::GenericDict d = arg.value->toGenericDict();
    if (n > d.size()) {
      return absl::OutOfRangeError(absl::StrCat("asked for ", n, " items of ",
                                                tsb::DescribeValue(*arg.value)));
    }
    if (n == 0) return absl::OkStatus();
    TSB_RETURN_IF_ERROR(CheckArg(keys, "keys"));
    TSB_RETURN_IF_ERROR(CheckArg(values, "values"));
    const TypeInfo& key_type = Contained(*arg.type, 0);
    const TypeInfo& value_type = Contained(*arg.type, 1);
    tsb::ReleaseOnError written_keys(keys, 0), written_values(values, 0);
    auto entry = d.begin();
    for (size_t i = 0; i < n; ++i, ++entry) {
      TSB_RETURN_IF_ERROR(EntryOut(key_type, value_type, entry, &keys[i], &values[i]));
      written_keys.Grow();
      written_values.Grow();
    }
    written_keys.Disarm();
    written_values.Disarm();
    return absl::OkStatus();
  });
}

tsb_status* tsb_dict_get(const tsb_any* dict, const tsb_any* key, tsb_any* out) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    TSB_ASSIGN_OR_RETURN(TypedValue typed, ContainerArg(dict, TSB_KIND_DICT, "dict"));
    TSB_ASSIGN_OR_RETURN(c10::IValue raw_key, ValueArg(key, "key"));
    const TypeInfo& key_type = Contained(*typed.type, 0);
    absl::StatusOr<c10::IValue> k = tsb::CoerceTo(raw_key, key_type);
    if (!k.ok()) return tsb::WithPath(k.status(), "key");
    c10::impl::GenericDict d = typed.value.toGenericDict();
    auto found = d.find(*k);
    if (found == d.end()) {
      return absl::NotFoundError(absl::StrCat(tsb::DescribeValue(*k), " is not a key of ",
                                              tsb::DescribeValue(typed.value)));
    }
    return tsb::ToBoundary(found->value(), Contained(*typed.type, 1), out);
  });
}

tsb_status* tsb_list_copy_int(const tsb_any* list, size_t n, int64_t* out) {
  return CopyList(list, TSB_TYPE_INT, out, n, [](const c10::IValue& v) { return v.toInt(); });
}

tsb_status* tsb_list_copy_float(const tsb_any* list, size_t n, double* out) {
  return CopyList(list, TSB_TYPE_FLOAT, out, n,
                  [](const c10::IValue& v) { return v.toDouble(); });
}

tsb_status* tsb_list_copy_bool(const tsb_any* list, size_t n, bool* out) {
  return CopyList(list, TSB_TYPE_BOOL, out, n, [](const c10::IValue& v) { return v.toBool(); });
}

tsb_status* tsb_list_new_int(const int64_t* data, size_t n, tsb_any* out) {
  return ListFrom(data, n, TSB_TYPE_INT, out);
}

tsb_status* tsb_list_new_float(const double* data, size_t n, tsb_any* out) {
  return ListFrom(data, n, TSB_TYPE_FLOAT, out);
}

tsb_status* tsb_list_new_bool(const bool* data, size_t n, tsb_any* out) {
  return ListFrom(data, n, TSB_TYPE_BOOL, out);
}

tsb_status* tsb_list_new(int32_t element_type, const tsb_any* items, size_t n,
                         tsb_any* out) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    if (n > 0) TSB_RETURN_IF_ERROR(CheckArg(items, "items"));
    TSB_ASSIGN_OR_RETURN(const TypeInfo* element, tsb::FindType(element_type));
    // Typed from the element type the host names, not from the values.
    TSB_ASSIGN_OR_RETURN(const TypeInfo* list_type, tsb::TypeRegistry::Global().InternOf(
                                                        c10::TypeKind::ListType, {element}));
    c10::impl::GenericList list(element->type);
    list.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      absl::StatusOr<c10::IValue> item = ItemAs(items[i], *element);
      if (!item.ok()) return tsb::WithPath(item.status(), tsb::IndexSegment(i));
      list.push_back(*std::move(item));
    }
    return list_type->codec->Encode(c10::IValue(std::move(list)), *list_type, out);
  });
}

tsb_status* tsb_tuple_new(const tsb_any* items, size_t n, tsb_any* out) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    if (n > 0) TSB_RETURN_IF_ERROR(CheckArg(items, "items"));
    // Typed from the items' own type indices: no type inferred from values.
    std::vector<c10::IValue> elements;
    absl::InlinedVector<const TypeInfo*, 8> types;
    elements.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      BorrowedValue item;
      absl::Status status = tsb::Borrow(items[i], &item);
      if (!status.ok()) return tsb::WithPath(status, tsb::IndexSegment(i));
      elements.push_back(*item.value);
      types.push_back(item.type);
    }
    TSB_ASSIGN_OR_RETURN(const TypeInfo* type, tsb::TypeRegistry::Global().InternOf(
                                                   c10::TypeKind::TupleType, types));
    return type->codec->Encode(
        c10::ivalue::Tuple::createNamed(std::move(elements), type->type), *type, out);
  });
}

tsb_status* tsb_tuple_new_typed(int32_t tuple_type, const tsb_any* items, size_t n,
                                tsb_any* out) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    if (n > 0) TSB_RETURN_IF_ERROR(CheckArg(items, "items"));
    TSB_ASSIGN_OR_RETURN(const TypeInfo* type, tsb::FindType(tuple_type));
    if (type->kind != TSB_KIND_TUPLE && type->kind != TSB_KIND_NAMEDTUPLE) {
      return tsb::TypeError(
          absl::StrCat("expected a Tuple or NamedTuple type, got ", type->annotation));
    }
    if (n != type->contained.size()) {
      return tsb::TypeError(absl::StrCat("expected ", type->contained.size(),
                                         " items for ", type->annotation, ", got ", n));
    }
    std::vector<c10::IValue> elements;
    elements.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      absl::StatusOr<c10::IValue> item = ItemAs(items[i], Contained(*type, i));
      if (!item.ok()) {
        return tsb::WithPath(item.status(),
                             type->kind == TSB_KIND_NAMEDTUPLE
                                 ? tsb::FieldSegment(type->field_names[i])
                                 : tsb::IndexSegment(i));
      }
      elements.push_back(*std::move(item));
    }
    return type->codec->Encode(
        c10::ivalue::Tuple::createNamed(std::move(elements), type->type), *type, out);
  });
}

tsb_status* tsb_dict_new(int32_t key_type, int32_t value_type, const tsb_any* keys,
                         const tsb_any* values, size_t n, tsb_any* out) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    if (n > 0) {
      TSB_RETURN_IF_ERROR(CheckArg(keys, "keys"));
      TSB_RETURN_IF_ERROR(CheckArg(values, "values"));
    }
    TSB_ASSIGN_OR_RETURN(const TypeInfo* key, tsb::FindType(key_type));
    TSB_ASSIGN_OR_RETURN(const TypeInfo* value, tsb::FindType(value_type));
    // Interning first lets LibTorch reject an unsupported key type; a dict
    // type seen before is found by its parts' indices alone.
    TSB_ASSIGN_OR_RETURN(const TypeInfo* dict_type, tsb::TypeRegistry::Global().InternOf(
                                                        c10::TypeKind::DictType, {key, value}));
    c10::impl::GenericDict dict(key->type, value->type);
    dict.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      // The path names the entry by its key, as every host does: key "a".
      BorrowedValue given;
      absl::Status status = tsb::Borrow(keys[i], &given);
      if (!status.ok()) return tsb::WithPath(status, absl::StrCat("keys[", i, "]"));
      absl::StatusOr<c10::IValue> k = given.type == key
                                          ? absl::StatusOr<c10::IValue>(*given.value)
                                          : tsb::CoerceTo(*given.value, *key);
      if (!k.ok()) return tsb::WithPath(k.status(), tsb::KeySegmentOf(*given.value));
      absl::StatusOr<c10::IValue> v = ItemAs(values[i], *value);
      if (!v.ok()) return tsb::WithPath(v.status(), tsb::KeySegmentOf(*k));
      dict.insert_or_assign(*std::move(k), *std::move(v));
    }
    return dict_type->codec->Encode(c10::IValue(std::move(dict)), *dict_type, out);
  });
}

}  // extern "C"
