// Containers: access, bulk copies, builders and type-directed coercion. Each
// function checks its arguments and calls inward (core/value/containers.h).
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "core/abi/arguments.h"
#include "core/abi/guard.h"
#include "core/compat/torch_compat.h"
#include "core/value/containers.h"
#include "core/value/flatten.h"
#include "core/value/unflatten.h"
#include "tsbridge/plugin/kind_codec.hpp"

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

// Each of the n items of a List whose element type is `element`, n ==
// length, handed to visit(i, item) (the list borrowed: a visitor may hand
// out pointers into its items). The bulk reads below share it.
template <typename Visit>
absl::Status VisitList(const tsb_any* list, int32_t element, size_t n, Visit visit) {
  BorrowedValue arg;
  TSB_RETURN_IF_ERROR(BorrowContainerArg(list, TSB_KIND_LIST, "list", &arg));
  if (arg.type->contained[0] != element) {
    TSB_ASSIGN_OR_RETURN(const TypeInfo* want, tsb::FindType(element));
    return tsb::TypeError(absl::StrCat("expected List[", want->annotation, "], got ",
                                       tsb::DescribeValue(*arg.value)));
  }
  c10::ArrayRef<c10::IValue> items = arg.value->toListRef();
  if (n != items.size()) {
    return absl::OutOfRangeError(absl::StrCat(
        "buffer holds ", n, " elements but the list has ", items.size()));
  }
  for (size_t i = 0; i < n; ++i) TSB_RETURN_IF_ERROR(visit(i, items[i]));
  return absl::OkStatus();
}

// Bulk copy of a List[T] whose element type is `element`.
template <typename T, typename Extract>
tsb_status* CopyList(const tsb_any* list, int32_t element, T* out, size_t n,
                     Extract extract) {
  return Guard([&]() -> absl::Status {
    if (n > 0) TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    return VisitList(list, element, n, [&](size_t i, const c10::IValue& item) {
      if constexpr (std::is_same_v<T, int64_t>) {  // a UInt item fits no int64_t
        if (tsb::compat::IsUInt(item)) {
          return tsb::WithPath(tsb::abi::NotInt64(tsb::compat::ToUInt(item)),
                               tsb::IndexSegment(i));
        }
      }
      out[i] = extract(item);
      return absl::OkStatus();
    });
  });
}

// A new List[T] from a host buffer.
template <typename T>
tsb_status* ListFrom(const T* data, size_t n, tsb_any* out) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    if (n > 0) TSB_RETURN_IF_ERROR(CheckArg(data, "data"));
    return tsb::NewList(data, n, out);
  });
}

// The host's buffers of n items (or keys and values): non-NULL unless empty.
absl::Status CheckItems(size_t n, const tsb_any* items, const char* name) {
  return n > 0 ? CheckArg(items, name) : absl::OkStatus();
}

// tsb_list_new, tsb_tuple_new, tsb_tuple_new_typed: out and the items
// checked, then make() builds the container into out.
template <typename Make>
tsb_status* NewOfItems(const tsb_any* items, size_t n, tsb_any* out, Make&& make) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    TSB_RETURN_IF_ERROR(CheckItems(n, items, "items"));
    return make();
  });
}

}  // namespace

extern "C" {

tsb_status* tsb_any_len(const tsb_any* container, size_t* out) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    BorrowedValue arg;
    TSB_RETURN_IF_ERROR(BorrowArg(container, "container", &arg));
    TSB_ASSIGN_OR_RETURN(*out, tsb::ContainerLength(*arg.value, *arg.type));
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
    TSB_ASSIGN_OR_RETURN(size_t length, tsb::ContainerLength(*arg.value, *arg.type));
    if (n != length) {
      return absl::OutOfRangeError(absl::StrCat("buffer holds ", n, " elements but ",
                                                tsb::DescribeValue(*arg.value), " has ", length));
    }
    if (n == 0) return absl::OkStatus();
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    return tsb::ContainerItems(*arg.value, *arg.type, n, out);
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

tsb_status* tsb_any_flatten_borrowed(const tsb_any* value, tsb_any* out, size_t capacity,
                                     size_t* n) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(n, "n"));
    if (capacity > 0) TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    BorrowedValue arg;
    TSB_RETURN_IF_ERROR(BorrowArg(value, "value", &arg));
    return tsb::FlattenValue(*arg.value, *arg.type, out, capacity, n, /*borrow_tensors=*/true);
  });
}

tsb_status* tsb_any_unflatten(int32_t type_index, const tsb_any* entries, size_t n,
                              tsb_any* out) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    TSB_RETURN_IF_ERROR(CheckItems(n, entries, "entries"));
    TSB_ASSIGN_OR_RETURN(const TypeInfo* type, tsb::FindType(type_index));
    return tsb::UnflattenValue(*type, entries, n, out);
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
    return tsb::DictItem(typed.value, *typed.type, i, key, value);
  });
}

tsb_status* tsb_dict_get_items(const tsb_any* dict, size_t n, tsb_any* keys, tsb_any* values) {
  return Guard([&]() -> absl::Status {
    // Borrowed: the walk copies no IValue but the items it hands out.
    BorrowedValue arg;
    TSB_RETURN_IF_ERROR(BorrowContainerArg(dict, TSB_KIND_DICT, "dict", &arg));
    if (n > arg.value->toGenericDict().size()) {
      return absl::OutOfRangeError(absl::StrCat("asked for ", n, " items of ",
                                                tsb::DescribeValue(*arg.value)));
    }
    if (n == 0) return absl::OkStatus();
    TSB_RETURN_IF_ERROR(CheckArg(keys, "keys"));
    TSB_RETURN_IF_ERROR(CheckArg(values, "values"));
    return tsb::DictItems(*arg.value, *arg.type, n, keys, values);
  });
}

tsb_status* tsb_dict_get(const tsb_any* dict, const tsb_any* key, tsb_any* out) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    TSB_ASSIGN_OR_RETURN(TypedValue typed, ContainerArg(dict, TSB_KIND_DICT, "dict"));
    TSB_ASSIGN_OR_RETURN(c10::IValue raw_key, ValueArg(key, "key"));
    return tsb::DictLookup(typed.value, *typed.type, raw_key, out);
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

tsb_status* tsb_list_get_strs(const tsb_any* list, size_t n, const char** data,
                              size_t* lens) {
  return Guard([&]() -> absl::Status {
    if (n > 0) {
      TSB_RETURN_IF_ERROR(CheckArg(data, "data"));
      TSB_RETURN_IF_ERROR(CheckArg(lens, "lens"));
    }
    // Borrowed: the pointers handed out are the list's own strings.
    return VisitList(list, TSB_TYPE_STR, n, [&](size_t i, const c10::IValue& item) {
      const std::string& s = item.toStringRef();
      data[i] = s.c_str();
      lens[i] = s.size();
      return absl::OkStatus();
    });
  });
}

tsb_status* tsb_list_new_int(const int64_t* data, size_t n, tsb_any* out) {
  return ListFrom(data, n, out);
}

tsb_status* tsb_list_new_float(const double* data, size_t n, tsb_any* out) {
  return ListFrom(data, n, out);
}

tsb_status* tsb_list_new_bool(const bool* data, size_t n, tsb_any* out) {
  return ListFrom(data, n, out);
}

tsb_status* tsb_list_new(int32_t element_type, const tsb_any* items, size_t n,
                         tsb_any* out) {
  return NewOfItems(items, n, out, [&] { return tsb::NewList(element_type, items, n, out); });
}

tsb_status* tsb_tuple_new(const tsb_any* items, size_t n, tsb_any* out) {
  return NewOfItems(items, n, out, [&] { return tsb::NewTuple(items, n, out); });
}

tsb_status* tsb_tuple_new_typed(int32_t tuple_type, const tsb_any* items, size_t n,
                                tsb_any* out) {
  return NewOfItems(items, n, out,
                    [&] { return tsb::NewTypedTuple(tuple_type, items, n, out); });
}

tsb_status* tsb_tuple_new_named(const char* qualified_name, const char* const* field_names,
                                const tsb_any* items, size_t n, tsb_any* out) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    TSB_RETURN_IF_ERROR(CheckItems(n, items, "items"));
    if (n > 0) TSB_RETURN_IF_ERROR(CheckArg(field_names, "field_names"));
    return tsb::NewNamedTuple(qualified_name, field_names, items, n, out);
  });
}

tsb_status* tsb_dict_new(int32_t key_type, int32_t value_type, const tsb_any* keys,
                         const tsb_any* values, size_t n, tsb_any* out) {
  return Guard([&]() -> absl::Status {
    TSB_RETURN_IF_ERROR(CheckArg(out, "out"));
    TSB_RETURN_IF_ERROR(CheckItems(n, keys, "keys"));
    TSB_RETURN_IF_ERROR(CheckItems(n, values, "values"));
    return tsb::NewDict(key_type, value_type, keys, values, n, out);
  });
}

}  // extern "C"
