#include "tests/testing/abi_test.h"

#include <dlpack/dlpack.h>

#include <vector>

#include "core/value/convert.h"
#include "tsbridge/plugin/kind_codec.hpp"

namespace tsb::testing {

int32_t TypeOf(const char* annotation) {
  int32_t index = TSB_TYPE_INVALID;
  Status s(tsb_type_parse(annotation, &index));
  EXPECT_EQ(s.get(), nullptr) << tsb_status_get_message(s.get());
  return index;
}

tsb_any Boundary(const c10::IValue& value, const char* annotation) {
  tsb_any out{};
  absl::Status status;
  if (annotation == nullptr) {
    status = ToBoundary(value, &out);
  } else {
    status = ToBoundary(value, *FindType(TypeOf(annotation)).value(), &out);
  }
  EXPECT_TRUE(status.ok()) << status;
  return out;
}

c10::IValue FromBoundary(const tsb_any& value) {
  absl::StatusOr<c10::IValue> iv = ToIValue(value);
  EXPECT_TRUE(iv.ok()) << iv.status();
  return iv.ok() ? *iv : c10::IValue();
}

namespace {

void Check(tsb_status* raw) {
  Status s(raw);
  ASSERT_EQ(s.get(), nullptr) << tsb_status_get_message(s.get());
}

}  // namespace

tsb_any HostRebuild(const tsb_any& value) {
  tsb_any out{};
  switch (::tsb::KindOf(value.type_index)) {
    case TSB_KIND_NONE: return tsb_any_none();
    case TSB_KIND_BOOL: { bool b; Check(tsb_bool_get(&value, &b)); return tsb_any_bool(b); }
    case TSB_KIND_INT: { int64_t i; Check(tsb_int_get(&value, &i)); return tsb_any_int(i); }
    case TSB_KIND_FLOAT: { double d; Check(tsb_float_get(&value, &d)); return tsb_any_float(d); }
    case TSB_KIND_DTYPE: { int32_t c; Check(tsb_dtype_get(&value, &c)); return tsb_any_dtype(c); }
    case TSB_KIND_LAYOUT: { int32_t c; Check(tsb_layout_get(&value, &c)); return tsb_any_layout(c); }
    case TSB_KIND_MEMORY_FORMAT: {
      int32_t c; Check(tsb_memory_format_get(&value, &c)); return tsb_any_memory_format(c);
    }
    case TSB_KIND_DEVICE: {
      int32_t type, index; Check(tsb_device_get(&value, &type, &index));
      return tsb_any_device(type, index);
    }
    case TSB_KIND_COMPLEX: {
      double re, im; Check(tsb_complex_get(&value, &re, &im));
      Check(tsb_complex_new(re, im, &out));
      return out;
    }
    case TSB_KIND_STR: {
      const char* data; size_t len; Check(tsb_str_get(&value, &data, &len));
      Check(tsb_str_new(data, len, &out));
      return out;
    }
    case TSB_KIND_TENSOR: {
      DLManagedTensor* managed = nullptr;
      Check(tsb_tensor_to_dlpack(&value, &managed));
      Check(tsb_tensor_from_dlpack(managed, &out));
      return out;
    }
    case TSB_KIND_LIST: {
      size_t n = 0;
      Check(tsb_any_len(&value, &n));
      std::vector<tsb_any> items(n);
      for (size_t i = 0; i < n; ++i) {
        Value item;
        Check(tsb_list_get(&value, i, item.out()));
        items[i] = HostRebuild(item.get());
      }
      // Untyped on the way in; the expected type decides, as a schema would.
      Value untyped;
      Check(tsb_list_new(TSB_TYPE_ANY, items.data(), n, untyped.out()));
      for (tsb_any& item : items) tsb_any_release(&item);
      Check(tsb_any_coerce(&untyped.get(), value.type_index, &out));
      return out;
    }
    case TSB_KIND_DICT: {
      tsb_type_info info = InfoOf(value.type_index);
      size_t n = 0;
      Check(tsb_any_len(&value, &n));
      std::vector<tsb_any> keys(n), values(n);
      Check(tsb_dict_get_items(&value, n, keys.data(), values.data()));
      for (size_t i = 0; i < n; ++i) {
        tsb_any k = HostRebuild(keys[i]), v = HostRebuild(values[i]);
        tsb_any_release(&keys[i]);
        tsb_any_release(&values[i]);
        keys[i] = k;
        values[i] = v;
      }
      Check(tsb_dict_new(info.contained[0], info.contained[1], keys.data(),
                         values.data(), n, &out));
      for (size_t i = 0; i < n; ++i) {
        tsb_any_release(&keys[i]);
        tsb_any_release(&values[i]);
      }
      return out;
    }
    case TSB_KIND_ENUM: {  // by member name, as a host would
      const char* member = nullptr;
      Check(tsb_enum_get(&value, &member, nullptr));
      tsb_any name = tsb_any_borrowed_str(member);
      Check(tsb_any_coerce(&name, value.type_index, &out));
      return out;
    }
    case TSB_KIND_OBJECT:
    case TSB_KIND_CUSTOM_CLASS:
      // A host cannot build an object (TorchScript runs its __init__): it
      // passes on the handle it was given.
      out = value;
      tsb_any_retain(&out);
      return out;
    default:
      ADD_FAILURE() << "HostRebuild: unhandled kind " << ::tsb::KindOf(value.type_index);
      return out;
  }
}

::testing::AssertionResult SameValue(const c10::IValue& a, const c10::IValue& b) {
  if (a.tagKind() != b.tagKind()) {
    return ::testing::AssertionFailure() << a.tagKind() << " vs " << b.tagKind();
  }
  if (a.isTensor()) {
    const at::Tensor &x = a.toTensor(), &y = b.toTensor();
    if (x.data_ptr() != y.data_ptr()) return ::testing::AssertionFailure() << "tensor copied";
    if (!x.equal(y)) return ::testing::AssertionFailure() << "tensor values differ";
    return ::testing::AssertionSuccess();
  }
  if (a.isList()) {
    auto x = a.toList(), y = b.toList();
    if (*x.elementType() != *y.elementType() || x.size() != y.size()) {
      return ::testing::AssertionFailure()
             << a.type()->annotation_str() << " of " << x.size() << " vs "
             << b.type()->annotation_str() << " of " << y.size();
    }
    for (size_t i = 0; i < x.size(); ++i) {
      auto r = SameValue(x.get(i), y.get(i));
      if (!r) return r << " at [" << i << "]";
    }
    return ::testing::AssertionSuccess();
  }
  if (a.isGenericDict()) {
    auto x = a.toGenericDict(), y = b.toGenericDict();
    if (*x.keyType() != *y.keyType() || *x.valueType() != *y.valueType() ||
        x.size() != y.size()) {
      return ::testing::AssertionFailure()
             << a.type()->annotation_str() << " vs " << b.type()->annotation_str();
    }
    for (auto i = x.begin(), j = y.begin(); i != x.end(); ++i, ++j) {
      auto rk = SameValue(i->key(), j->key());
      if (!rk) return rk << " (key, order)";
      auto rv = SameValue(i->value(), j->value());
      if (!rv) return rv << " at key " << i->key();
    }
    return ::testing::AssertionSuccess();
  }
  if (a.isObject()) {  // objects cross by reference
    if (a.isSameIdentity(b)) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "object copied";
  }
  if (a == b) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << a << " vs " << b;
}

void ExpectItemsAsListGet(const tsb_any& container, size_t n) {
  size_t length = 0;
  TSB_ASSERT_OK(tsb_any_len(&container, &length));
  ASSERT_EQ(length, n);
  std::vector<tsb_any> items(n);
  TSB_ASSERT_OK(tsb_list_get_items(&container, n, items.data()));
  for (size_t i = 0; i < n; ++i) {
    SCOPED_TRACE(i);
    Value item(items[i]), one;
    TSB_ASSERT_OK(tsb_list_get(&container, i, one.out()));
    EXPECT_EQ(item.get().type_index, one.get().type_index);
    EXPECT_EQ(item.get().flags, one.get().flags);
    if ((item.get().flags & TSB_FLAG_HANDLE) != 0) {
      EXPECT_TRUE(SameValue(FromBoundary(item.get()), FromBoundary(one.get())));
    } else {
      EXPECT_EQ(item.get().u.i, one.get().u.i);
    }
  }
}

}  // namespace tsb::testing
