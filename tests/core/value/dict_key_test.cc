// Dict keys at the builder (tsb_dict_new): only the types LibTorch can hash,
// one type per dict; refused as type errors that name the key, never as
// LibTorch's own "Cannot create dict" or a Dict[Any, V] TorchScript cannot
// spell.
#include <string>

#include "tests/testing/abi_test.h"

namespace tsb::testing {
namespace {

using DictKeyTest = AbiTest;

std::string AnnotationOf(const tsb_any& v) {
  tsb_type_info info{};
  info.struct_size = sizeof info;
  EXPECT_EQ(tsb_type_get_info(v.type_index, &info), nullptr);
  return info.annotation != nullptr ? info.annotation : "";
}

TEST_F(DictKeyTest, AnyKeysTakeTheirOwnType) {
  tsb_any keys[2] = {tsb_any_int(1), tsb_any_int(2)};
  tsb_any values[2] = {tsb_any_borrowed_str("a"), tsb_any_borrowed_str("b")};
  Value d;
  TSB_ASSERT_OK(tsb_dict_new(TSB_TYPE_ANY, TSB_TYPE_STR, keys, values, 2, d.out()));
  EXPECT_EQ(AnnotationOf(d.get()), "Dict[int, str]");
}

TEST_F(DictKeyTest, KeysOfTwoTypesAreRefusedByPath) {
  tsb_any keys[2] = {tsb_any_borrowed_str("a"), tsb_any_int(3)};
  tsb_any values[2] = {tsb_any_int(1), tsb_any_int(2)};
  tsb_any out{};
  ExpectStatus(tsb_dict_new(TSB_TYPE_ANY, TSB_TYPE_INT, keys, values, 2, &out), TSB_ERR_TYPE,
               "keys[1]", "expected a dict key of type str (the type of keys[0]), got int 3");
}

TEST_F(DictKeyTest, UnhashableKeysAreTypeErrors) {
  tsb_any none = tsb_any_none();
  tsb_any value = tsb_any_int(1);
  tsb_any out{};
  ExpectStatus(tsb_dict_new(TSB_TYPE_ANY, TSB_TYPE_INT, &none, &value, 1, &out), TSB_ERR_TYPE,
               "keys[0]",
               "expected a dict key (str, int, float, complex, bool, Tensor or Device), got None");
  Value list;
  TSB_ASSERT_OK(tsb_list_new_int(nullptr, 0, list.out()));
  ExpectStatus(tsb_dict_new(TSB_TYPE_ANY, TSB_TYPE_INT, &list.get(), &value, 1, &out),
               TSB_ERR_TYPE, "keys[0]",
               "expected a dict key (str, int, float, complex, bool, Tensor or Device), got "
               "List[int] of length 0");
  ExpectStatus(tsb_dict_new(TSB_TYPE_NONE, TSB_TYPE_INT, &none, &value, 1, &out), TSB_ERR_TYPE,
               "",
               "expected a dict key type (str, int, float, complex, bool, Tensor or Device), "
               "got NoneType");
}

TEST_F(DictKeyTest, AnEmptyAnyDictStaysOne) {
  Value d;
  TSB_ASSERT_OK(tsb_dict_new(TSB_TYPE_ANY, TSB_TYPE_INT, nullptr, nullptr, 0, d.out()));
  EXPECT_EQ(AnnotationOf(d.get()), "Dict[Any, int]");
}

}  // namespace
}  // namespace tsb::testing
