// Misuse of the C ABI gives a clear status, never a crash: NULL arguments,
// unknown or malformed values, the wrong accessor, out-of-range indices.
#include <torch/torch.h>

#include "tests/testing/abi_test.h"

namespace tsb::testing {
namespace {

class AbiMisuseTest : public AbiTest {};

TEST_F(AbiMisuseTest, NullArguments) {
  tsb_any v = tsb_any_int(1);
  int64_t i;
  size_t n;
  ExpectStatus(tsb_int_get(nullptr, &i), TSB_ERR_INVALID_ARGUMENT, "", "argument 'v' is NULL");
  ExpectStatus(tsb_int_get(&v, nullptr), TSB_ERR_INVALID_ARGUMENT, "", "argument 'out' is NULL");
  ExpectStatus(tsb_any_len(nullptr, &n), TSB_ERR_INVALID_ARGUMENT, "", "argument 'container' is NULL");
  ExpectStatus(tsb_list_get(nullptr, 0, &v), TSB_ERR_INVALID_ARGUMENT, "", "argument 'list' is NULL");
  ExpectStatus(tsb_list_new(TSB_TYPE_INT, nullptr, 2, &v), TSB_ERR_INVALID_ARGUMENT, "", "argument 'items' is NULL");
  ExpectStatus(tsb_any_coerce(nullptr, TSB_TYPE_INT, &v), TSB_ERR_INVALID_ARGUMENT, "", "argument 'value' is NULL");
  ExpectStatus(tsb_type_parse(nullptr, nullptr), TSB_ERR_INVALID_ARGUMENT, "", "argument 'annotation' is NULL");
  ExpectStatus(tsb_str_new(nullptr, 3, &v), TSB_ERR_INVALID_ARGUMENT, "", "argument 'data' is NULL");
  ExpectStatus(tsb_tensor_from_dlpack(nullptr, &v), TSB_ERR_INVALID_ARGUMENT, "", "argument 'managed' is NULL");
  ExpectStatus(tsb_any_repr(&v, nullptr), TSB_ERR_INVALID_ARGUMENT, "", "argument 'out' is NULL");
  // Functions without a status tolerate NULL.
  tsb_any_retain(nullptr);
  tsb_any_release(nullptr);
  tsb_status_free(nullptr);
  EXPECT_EQ(tsb_status_get_code(nullptr), TSB_OK);
  EXPECT_STREQ(tsb_status_get_message(nullptr), "");
}

TEST_F(AbiMisuseTest, EmptyBuildersAcceptNullBuffers) {
  Value list;
  TSB_ASSERT_OK(tsb_list_new_int(nullptr, 0, list.out()));
  size_t n = 1;
  TSB_ASSERT_OK(tsb_any_len(&list.get(), &n));
  EXPECT_EQ(n, 0u);
  TSB_ASSERT_OK(tsb_list_copy_int(&list.get(), 0, nullptr));
}

TEST_F(AbiMisuseTest, MalformedValues) {
  tsb_any zero{};  // a zero-initialised tsb_any is invalid, not None
  int64_t i;
  ExpectStatus(tsb_int_get(&zero, &i), TSB_ERR_NOT_FOUND, "", "unknown type index 0");
  tsb_any unknown = tsb_any_inline(12345, 0);
  ExpectStatus(tsb_any_coerce(&unknown, TSB_TYPE_INT, &zero), TSB_ERR_NOT_FOUND, "", "unknown type index 12345");
  tsb_any null_handle = tsb_any_inline(TSB_TYPE_TENSOR, 0);
  null_handle.flags = TSB_FLAG_HANDLE;
  ExpectStatus(tsb_any_coerce(&null_handle, TSB_TYPE_TENSOR, &zero), TSB_ERR_INVALID_ARGUMENT, "", "malformed value: a handle was expected but u.obj is NULL");
  tsb_any null_str = tsb_any_borrowed_str(nullptr);
  const char* data;
  size_t len;
  ExpectStatus(tsb_str_get(&null_str, &data, &len), TSB_ERR_INVALID_ARGUMENT, "", "malformed value: borrowed str is NULL");
  tsb_any bad_dtype = tsb_any_dtype(999);
  ExpectStatus(tsb_any_coerce(&bad_dtype, TSB_TYPE_DTYPE, &zero), TSB_ERR_INVALID_ARGUMENT, "", "invalid ScalarTypeType code 999 (valid: 0 to " +
                   std::to_string(static_cast<int>(c10::ScalarType::NumOptions) - 1) + ")");
  tsb_any bad_device = tsb_any_device(0, 5);  // CPU has no index 5
  ExpectStatus(tsb_any_coerce(&bad_device, TSB_TYPE_DEVICE, &zero), TSB_ERR_INVALID_ARGUMENT, "", "invalid Device: CPU device index must be -1 or zero, got 5");
  // Flags that do not fit the type.
  tsb_any borrowed_int = tsb_any_borrowed_str("7");
  borrowed_int.type_index = TSB_TYPE_INT;
  ExpectStatus(tsb_int_get(&borrowed_int, &i), TSB_ERR_INVALID_ARGUMENT, "", "malformed value: flags 2 do not fit type int");
  tsb_any stray_flag = tsb_any_int(1);
  stray_flag.flags = 64;
  ExpectStatus(tsb_int_get(&stray_flag, &i), TSB_ERR_INVALID_ARGUMENT, "", "malformed value: flags 64 do not fit type int");
  // A handle whose type_index disagrees with its object's.
  Value s;
  TSB_ASSERT_OK(tsb_str_new("x", 1, s.out()));
  tsb_any lying = s.get();
  lying.type_index = TSB_TYPE_TENSOR;
  ExpectStatus(tsb_any_coerce(&lying, TSB_TYPE_TENSOR, &zero), TSB_ERR_INVALID_ARGUMENT, "", "malformed value: type_index 7 does not match its handle's type index 6");
}

TEST_F(AbiMisuseTest, WrongAccessorForAKind) {
  Value s;
  TSB_ASSERT_OK(tsb_str_new("hi", 2, s.out()));
  int64_t i;
  double d;
  bool b;
  ExpectStatus(tsb_int_get(&s.get(), &i), TSB_ERR_TYPE, "", "expected int, got str \"hi\"");
  tsb_any one = tsb_any_int(1);
  ExpectStatus(tsb_float_get(&one, &d), TSB_ERR_TYPE, "", "expected float, got int 1");
  ExpectStatus(tsb_bool_get(&one, &b), TSB_ERR_TYPE, "", "expected bool, got int 1");
  size_t n;
  ExpectStatus(tsb_any_len(&one, &n), TSB_ERR_TYPE, "", "expected a List, Dict or Tuple, got int");
  tsb_any item;
  ExpectStatus(tsb_list_get(&s.get(), 0, &item), TSB_ERR_TYPE, "", "expected a List or Tuple, got str");
  tsb_any k, v;
  ExpectStatus(tsb_dict_get_item(&one, 0, &k, &v), TSB_ERR_TYPE, "", "expected a Dict, got int 1");
  DLManagedTensor* managed;
  ExpectStatus(tsb_tensor_to_dlpack(&one, &managed), TSB_ERR_TYPE, "", "expected Tensor, got int 1");
  Value list;
  int64_t data[] = {1, 2};
  TSB_ASSERT_OK(tsb_list_new_int(data, 2, list.out()));
  double out[2];
  ExpectStatus(tsb_list_copy_float(&list.get(), 2, out), TSB_ERR_TYPE, "", "expected List[float], got List[int] of length 2");
  ExpectStatus(tsb_dict_get_items(&list.get(), 1, &k, &v), TSB_ERR_TYPE, "", "expected a Dict, got List[int] of length 2");
}

TEST_F(AbiMisuseTest, OutOfRange) {
  int64_t data[] = {1, 2, 3};
  Value list;
  TSB_ASSERT_OK(tsb_list_new_int(data, 3, list.out()));
  tsb_any item = tsb_any_none();
  ExpectStatus(tsb_list_get(&list.get(), 3, &item), TSB_ERR_OUT_OF_RANGE, "", "index 3 out of range for List[int] of length 3");
  EXPECT_EQ(item.type_index, TSB_TYPE_NONE) << "out must stay untouched";
  int64_t small[2];
  ExpectStatus(tsb_list_copy_int(&list.get(), 2, small), TSB_ERR_OUT_OF_RANGE, "", "buffer holds 2 elements but the list has 3");
  tsb_any keys[] = {tsb_any_int(1)};
  tsb_any values[] = {tsb_any_int(2)};
  Value dict;
  TSB_ASSERT_OK(tsb_dict_new(TSB_TYPE_INT, TSB_TYPE_INT, keys, values, 1, dict.out()));
  tsb_any k, v;
  ExpectStatus(tsb_dict_get_item(&dict.get(), 1, &k, &v), TSB_ERR_OUT_OF_RANGE, "", "index 1 out of range for Dict[int, int] of length 1");
  tsb_any ks[2], vs[2];
  ExpectStatus(tsb_dict_get_items(&dict.get(), 2, ks, vs), TSB_ERR_OUT_OF_RANGE, "", "asked for 2 items of Dict[int, int] of length 1");
}

TEST_F(AbiMisuseTest, ReleaseIsIdempotentAndLiveCountTracksHandles) {
  size_t before = ::tsb::LiveHandles();
  tsb_any s;
  TSB_ASSERT_OK(tsb_str_new("x", 1, &s));
  EXPECT_EQ(::tsb::LiveHandles(), before + 1);
  tsb_any_retain(&s);
  tsb_any copy = s;
  tsb_any_release(&s);
  EXPECT_EQ(s.type_index, TSB_TYPE_INVALID);
  tsb_any_release(&s);  // harmless: s no longer holds anything
  EXPECT_EQ(::tsb::LiveHandles(), before + 1) << "copy still holds a reference";
  tsb_any_release(&copy);
  EXPECT_EQ(::tsb::LiveHandles(), before);
}

TEST_F(AbiMisuseTest, VersionMatchesHeader) {
  EXPECT_EQ(tsb_version(), TSB_VERSION);
  EXPECT_EQ(std::string(tsb_version_get_string()),
            std::to_string(TSB_VERSION_MAJOR) + "." + std::to_string(TSB_VERSION_MINOR) +
                "." + std::to_string(TSB_VERSION_PATCH));
}

TEST_F(AbiMisuseTest, ReprOfEveryInlineKind) {
  const std::pair<tsb_any, const char*> cases[] = {
      {tsb_any_none(), "None"}, {tsb_any_bool(true), "True"}, {tsb_any_int(-3), "-3"},
      {tsb_any_float(0.5), "0.5"}, {tsb_any_dtype(6), "Float"}, {tsb_any_layout(0), "Strided"},
      {tsb_any_memory_format(0), "Contiguous"}, {tsb_any_device(0, -1), "cpu"}};
  for (const auto& [value, text] : cases) {
    char* repr = nullptr;
    TSB_ASSERT_OK(tsb_any_repr(&value, &repr));
    EXPECT_STREQ(repr, text);
    tsb_string_free(repr);
  }
}

}  // namespace
}  // namespace tsb::testing
