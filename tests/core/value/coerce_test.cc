// tsb_any_coerce: type-directed conversion, and its errors with their paths.
#include <torch/torch.h>

#include "tests/testing/abi_test.h"
#include "tsbridge/plugin/kind_codec.hpp"

namespace tsb::testing {
namespace {

class CoerceTest : public AbiTest {
 protected:
  // Coerces and expects a type error with exactly this path and detail.
  void ExpectError(const tsb_any& value, const char* type, const char* path,
                   const char* detail, tsb_code code = TSB_ERR_TYPE) {
    Value out;
    Status s(tsb_any_coerce(&value, TypeOf(type), out.out()));
    ASSERT_NE(s.get(), nullptr) << "coercing to " << type << " should fail";
    EXPECT_EQ(tsb_status_get_code(s.get()), code) << tsb_status_get_message(s.get());
    EXPECT_STREQ(tsb_status_get_path(s.get()), path);
    EXPECT_STREQ(tsb_status_get_detail(s.get()), detail);
    std::string full = *path ? std::string(path) + ": " + detail : std::string(detail);
    EXPECT_EQ(tsb_status_get_message(s.get()), full);
    EXPECT_EQ(out.get().type_index, TSB_TYPE_INVALID) << "out must stay untouched";
  }
};

TEST_F(CoerceTest, IntWidensToFloatAndComplex) {
  tsb_any three = tsb_any_int(3);
  Value f;
  TSB_ASSERT_OK(tsb_any_coerce(&three, TSB_TYPE_FLOAT, f.out()));
  EXPECT_EQ(f.get().type_index, TSB_TYPE_FLOAT);
  EXPECT_EQ(f.get().u.d, 3.0);
  Value c;
  TSB_ASSERT_OK(tsb_any_coerce(&three, TSB_TYPE_COMPLEX, c.out()));
  double re = 0, im = 1;
  TSB_ASSERT_OK(tsb_complex_get(&c.get(), &re, &im));
  EXPECT_EQ(re, 3.0);
  EXPECT_EQ(im, 0.0);
}

TEST_F(CoerceTest, NumberKeepsEachNumbersOwnKind) {
  tsb_any three = tsb_any_int(3);
  Value n;
  TSB_ASSERT_OK(tsb_any_coerce(&three, TypeOf("Scalar"), n.out()));
  EXPECT_EQ(n.get().type_index, TSB_TYPE_INT);
}

TEST_F(CoerceTest, ListOfAnyBecomesATypedList) {
  tsb_any items[] = {tsb_any_int(1), tsb_any_float(2.5), tsb_any_int(3)};
  Value untyped;
  TSB_ASSERT_OK(tsb_list_new(TSB_TYPE_ANY, items, 3, untyped.out()));
  EXPECT_EQ(untyped.get().type_index, TypeOf("List[Any]"));
  Value typed;
  TSB_ASSERT_OK(tsb_any_coerce(&untyped.get(), TypeOf("List[float]"), typed.out()));
  EXPECT_EQ(typed.get().type_index, TypeOf("List[float]"));
  double out[3];
  TSB_ASSERT_OK(tsb_list_copy_float(&typed.get(), 3, out));
  EXPECT_EQ(out[0], 1.0);
  EXPECT_EQ(out[1], 2.5);
  EXPECT_EQ(out[2], 3.0);
}

TEST_F(CoerceTest, AlreadyTypedContainersAreShared) {
  c10::List<int64_t> list({1, 2});
  Value in(Boundary(list));
  Value out;
  TSB_ASSERT_OK(tsb_any_coerce(&in.get(), TypeOf("List[int]"), out.out()));
  EXPECT_TRUE(FromBoundary(out.get()).isSameIdentity(c10::IValue(list))) << "a copy was made";
}

TEST_F(CoerceTest, DeviceFromString) {
  Value name;
  TSB_ASSERT_OK(tsb_str_new("cpu", 3, name.out()));
  Value device;
  TSB_ASSERT_OK(tsb_any_coerce(&name.get(), TSB_TYPE_DEVICE, device.out()));
  int32_t type = -1, index = 0;
  TSB_ASSERT_OK(tsb_device_get(&device.get(), &type, &index));
  EXPECT_EQ(type, 0);
  EXPECT_EQ(index, -1);
  ExpectError(tsb_any_borrowed_str("gpu"), "Device", "",
              "expected Device, got str \"gpu\", which does not name a device");
}

TEST_F(CoerceTest, WrongKind) {
  ExpectError(tsb_any_borrowed_str("x"), "int", "", "expected int, got str \"x\"");
  ExpectError(tsb_any_bool(true), "int", "", "expected int, got bool True");
  ExpectError(tsb_any_float(1.5), "int", "", "expected int, got float 1.5");
  ExpectError(tsb_any_int(1), "List[int]", "", "expected List[int], got int 1");
  ExpectError(tsb_any_int(99), "ScalarType", "", "expected ScalarType, got int 99");
}

TEST_F(CoerceTest, NoneWhereNotAllowed) {
  ExpectError(tsb_any_none(), "Tensor", "", "expected Tensor, got None");
  tsb_any items[] = {tsb_any_int(1), tsb_any_none()};
  Value list;
  TSB_ASSERT_OK(tsb_list_new(TSB_TYPE_ANY, items, 2, list.out()));
  ExpectError(list.get(), "List[int]", "[1]", "expected int, got None");
}

TEST_F(CoerceTest, WrongElementCarriesItsPath) {
  tsb_any items[] = {tsb_any_int(1), tsb_any_int(2), tsb_any_borrowed_str("x")};
  Value list;
  TSB_ASSERT_OK(tsb_list_new(TSB_TYPE_ANY, items, 3, list.out()));
  ExpectError(list.get(), "List[int]", "[2]", "expected int, got str \"x\"");
}

TEST_F(CoerceTest, PathThroughListAndDict) {
  // [2] -> key "b": the issue's own example.
  c10::impl::GenericList outer(c10::AnyType::get());
  for (int i = 0; i < 3; ++i) {
    c10::impl::GenericDict d(c10::StringType::get(), c10::AnyType::get());
    d.insert("a", int64_t{1});
    d.insert("b", i == 2 ? c10::IValue(std::string("x")) : c10::IValue(int64_t{2}));
    outer.push_back(d);
  }
  Value value(Boundary(outer));
  ExpectError(value.get(), "List[Dict[str, int]]", "[2] \xE2\x86\x92 key \"b\"",
              "expected int, got str \"x\"");
}

TEST_F(CoerceTest, WrongKeyType) {
  tsb_any keys[] = {tsb_any_borrowed_str("k")};
  tsb_any values[] = {tsb_any_int(1)};
  Value dict;
  TSB_ASSERT_OK(tsb_dict_new(TSB_TYPE_STR, TSB_TYPE_INT, keys, values, 1, dict.out()));
  ExpectError(dict.get(), "Dict[int, int]", "key \"k\"", "expected int, got str \"k\"");
}

// One path syntax in every host (issue 11, point 6): the dict builder names
// an entry by its key, as coercion does (it said values[0] and keys[0]).
TEST_F(CoerceTest, DictBuilderNamesTheEntryByItsKey) {
  tsb_any keys[] = {tsb_any_borrowed_str("a")};
  tsb_any none[] = {tsb_any_none()};
  Value out;
  Status bad_value(tsb_dict_new(TSB_TYPE_STR, TSB_TYPE_INT, keys, none, 1, out.out()));
  EXPECT_STREQ(tsb_status_get_path(bad_value.get()), "key \"a\"");
  EXPECT_STREQ(tsb_status_get_detail(bad_value.get()), "expected int, got None");
  tsb_any ints[] = {tsb_any_int(1)};
  Status bad_key(tsb_dict_new(TSB_TYPE_INT, TSB_TYPE_INT, keys, ints, 1, out.out()));
  EXPECT_STREQ(tsb_status_get_path(bad_key.get()), "key \"a\"");
  EXPECT_STREQ(tsb_status_get_detail(bad_key.get()), "expected int, got str \"a\"");
}

// A value in a message is summarised on one line (issue 11, point 6).
TEST_F(CoerceTest, ValuesAreSummarisedOnOneLine) {
  Value tensor(Boundary(torch::ones({2})));
  ExpectError(tensor.get(), "int", "", "expected int, got Tensor float32 [2]");
  // A tuple holding a tensor (it crosses only with the tuple plugin, so it
  // is described directly here): LibTorch would print the tensor whole.
  c10::IValue pair(c10::ivalue::Tuple::create({torch::ones({3, 2}), int64_t{1}}));
  EXPECT_EQ(tsb::DescribeValue(pair), "Tuple[Tensor, int] of length 2");
}

TEST_F(CoerceTest, WrongValueInNestedDictOfInts) {
  c10::impl::GenericDict d(c10::IntType::get(), c10::AnyType::get());
  d.insert(int64_t{7}, c10::List<double>({1.0}));
  Value value(Boundary(d));
  ExpectError(value.get(), "Dict[int, List[int]]", "key 7 \xE2\x86\x92 [0]",
              "expected int, got float 1");
}

// Float and bool keys are spelled as TorchScript and Python print them
// (tsbridge/path.hpp), as every host's kit spells them.
TEST_F(CoerceTest, FloatAndBoolKeysInThePath) {
  c10::impl::GenericDict floats(c10::FloatType::get(), c10::AnyType::get());
  floats.insert(2.0, c10::IValue("x"));
  Value by_float(Boundary(floats));
  ExpectError(by_float.get(), "Dict[float, int]", "key 2.0", "expected int, got str \"x\"");
  c10::impl::GenericDict bools(c10::BoolType::get(), c10::AnyType::get());
  bools.insert(true, c10::IValue("x"));
  Value by_bool(Boundary(bools));
  ExpectError(by_bool.get(), "Dict[bool, int]", "key True", "expected int, got str \"x\"");
}

TEST_F(CoerceTest, BuildersCoerceTheirItems) {
  tsb_any items[] = {tsb_any_int(1), tsb_any_borrowed_str("no")};
  Value list;
  Status s(tsb_list_new(TSB_TYPE_INT, items, 2, list.out()));
  EXPECT_STREQ(tsb_status_get_message(s.get()), "[1]: expected int, got str \"no\"");
  tsb_any keys[] = {tsb_any_borrowed_str("a"), tsb_any_int(2)};
  tsb_any values[] = {tsb_any_int(1), tsb_any_int(2)};
  Value dict;
  Status d(tsb_dict_new(TSB_TYPE_STR, TSB_TYPE_INT, keys, values, 2, dict.out()));
  // Issue 11, point 6: one path syntax, the entry named by its key (was keys[1]).
  EXPECT_STREQ(tsb_status_get_message(d.get()), "key 2: expected str, got int 2");
}

TEST_F(CoerceTest, RepeatedDictKeyKeepsFirstPositionAndLastValue) {
  tsb_any keys[] = {tsb_any_borrowed_str("a"), tsb_any_borrowed_str("b"), tsb_any_borrowed_str("a")};
  tsb_any values[] = {tsb_any_int(1), tsb_any_int(2), tsb_any_int(3)};
  Value dict;
  TSB_ASSERT_OK(tsb_dict_new(TSB_TYPE_STR, TSB_TYPE_INT, keys, values, 3, dict.out()));
  Value k, v;
  TSB_ASSERT_OK(tsb_dict_get_item(&dict.get(), 0, k.out(), v.out()));
  const char* data;
  size_t len;
  TSB_ASSERT_OK(tsb_str_get(&k.get(), &data, &len));
  EXPECT_EQ(std::string(data, len), "a");
  EXPECT_EQ(v.get().u.i, 3);
  size_t n = 0;
  TSB_ASSERT_OK(tsb_any_len(&dict.get(), &n));
  EXPECT_EQ(n, 2u);
}

TEST_F(CoerceTest, DictGetCoercesTheKey) {
  tsb_any keys[] = {tsb_any_int(1), tsb_any_int(2)};
  tsb_any values[] = {tsb_any_float(0.5), tsb_any_float(1.5)};
  Value dict;
  TSB_ASSERT_OK(tsb_dict_new(TSB_TYPE_INT, TSB_TYPE_FLOAT, keys, values, 2, dict.out()));
  tsb_any two = tsb_any_int(2);
  Value found;
  TSB_ASSERT_OK(tsb_dict_get(&dict.get(), &two, found.out()));
  EXPECT_EQ(found.get().u.d, 1.5);
  tsb_any missing = tsb_any_int(5);
  Status s(tsb_dict_get(&dict.get(), &missing, found.out()));
  EXPECT_EQ(tsb_status_get_code(s.get()), TSB_ERR_NOT_FOUND);
  EXPECT_STREQ(tsb_status_get_message(s.get()), "int 5 is not a key of Dict[int, float] of length 2");
  tsb_any wrong = tsb_any_borrowed_str("2");
  Status w(tsb_dict_get(&dict.get(), &wrong, found.out()));
  EXPECT_STREQ(tsb_status_get_message(w.get()), "key: expected int, got str \"2\"");
}

TEST_F(CoerceTest, MissingPluginIsNamed) {
  int32_t index = 0;
  Status tuple(tsb_type_parse("Tuple[int, str]", &index));
  EXPECT_EQ(tsb_status_get_code(tuple.get()), TSB_ERR_UNSUPPORTED);
  EXPECT_STREQ(tsb_status_get_message(tuple.get()),
               "no codec for Tuple[int, str]: load the tuple plugin (plugins/tuple)");
  Status optional(tsb_type_parse("List[Optional[int]]", &index));
  EXPECT_STREQ(tsb_status_get_message(optional.get()),
               "no codec for Optional[int]: load the optional plugin (plugins/optional)");
}

}  // namespace
}  // namespace tsb::testing
