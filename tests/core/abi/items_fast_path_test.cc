// Records and Optional items through the core's shortcuts
// (core/abi/container_abi.cc): a Tuple's or NamedTuple's items in one call
// are what its codec's Item gives, field by field; a builder's answer to
// "does this item cross as itself under that abstract type" is kept per pair
// of types, never per one of them.
#include <ATen/ATen.h>

#include "tests/plugins/plugin_testing.h"
#include "tsbridge/plugin/kind_codec.hpp"  // DescribeValue

namespace tsb::testing {
namespace {

using ItemsFastPathTest = PluginTest;

TEST_F(ItemsFastPathTest, RecordItemsAreTheCodecsItems) {
  auto record = c10::TupleType::createNamed(
      c10::QualifiedName("tsbridge_test.Mixed"),
      std::vector<std::string>{"n", "x", "t", "ints", "maybe", "none", "opt_t", "s"},
      {c10::IntType::get(), c10::FloatType::get(), c10::TensorType::get(),
       c10::ListType::ofInts(), c10::OptionalType::create(c10::IntType::get()),
       c10::OptionalType::create(c10::TensorType::get()),
       c10::OptionalType::create(c10::TensorType::get()), c10::StringType::get()});
  const at::Tensor t = at::ones({2});
  c10::IValue value = c10::ivalue::Tuple::createNamed(
      {c10::IValue(int64_t{4}), c10::IValue(0.5), c10::IValue(t),
       c10::IValue(c10::List<int64_t>({1, 2})), c10::IValue(int64_t{9}), c10::IValue(),
       c10::IValue(t), c10::IValue(std::string("s"))},
      record);
  for (const c10::IValue& v : {value, MakeTuple({int64_t{1}, std::string("a"), t})}) {
    SCOPED_TRACE(DescribeValue(v));
    Value boundary(Boundary(v));
    ExpectItemsAsListGet(boundary.get(), v.toTupleRef().size());
  }
  // Optional fields cross as their values: int inline, None, the tensor.
  Value boundary(Boundary(value));
  tsb_any items[8];
  TSB_ASSERT_OK(tsb_list_get_items(&boundary.get(), 8, items));
  std::vector<Value> owned(std::begin(items), std::end(items));
  EXPECT_EQ(items[4].type_index, TSB_TYPE_INT);
  EXPECT_EQ(items[4].u.i, 9);
  EXPECT_EQ(items[5].type_index, TSB_TYPE_NONE);
  EXPECT_EQ(items[6].type_index, TSB_TYPE_TENSOR);
  EXPECT_TRUE(FromBoundary(items[6]).toTensor().is_same(t));
  EXPECT_EQ(items[3].type_index, TypeOf("List[int]"));
}

TEST_F(ItemsFastPathTest, ItemsCrossAsThemselvesPerPairOfTypes) {
  Value t(Boundary(c10::IValue(at::ones({2}))));
  const tsb_any tensor_and_none[] = {t.get(), tsb_any_none()};
  Value list;
  TSB_ASSERT_OK(tsb_list_new(TypeOf("Optional[Tensor]"), tensor_and_none, 2, list.out()));
  c10::IValue built = FromBoundary(list.get());
  EXPECT_TRUE(built.toListRef()[0].toTensor().is_same(FromBoundary(t.get()).toTensor()));
  EXPECT_TRUE(built.toListRef()[1].isNone());
  // The same item type under another Optional: no answer is reused.
  Value refused;
  ExpectStatus(tsb_list_new(TypeOf("Optional[int]"), tensor_and_none, 2, refused.out()),
               TSB_ERR_TYPE, "[0]", "expected Optional[int], got Tensor float32 [2]");
  // And the first answer still holds after the second.
  Value again;
  TSB_ASSERT_OK(tsb_list_new(TypeOf("Optional[Tensor]"), tensor_and_none, 2, again.out()));
  const tsb_any one_str[] = {tsb_any_borrowed_str("s")};
  ExpectStatus(tsb_list_new(TypeOf("Optional[Tensor]"), one_str, 1, refused.out()), TSB_ERR_TYPE,
               "[0]", "expected Optional[Tensor], got str \"s\"");
}

// The per-thread answers live in 64 slots chosen by the two indices
// (container_abi.cc): an Optional whose index shares Optional[Tensor]'s slot
// must still refuse a Tensor after Optional[Tensor] accepted one there.
TEST_F(ItemsFastPathTest, ACachedAnswerIsNeverAnotherPairs) {
  const int32_t accepting = TypeOf("Optional[Tensor]");
  Value t(Boundary(c10::IValue(at::ones({2}))));
  int32_t same_slot = -1;
  for (int k = 1; k < 400 && same_slot < 0; ++k) {
    std::string tuple = "Tuple[int";
    for (int i = 1; i < k; ++i) tuple += ", int";
    tuple += "]";
    if (k % 2 == 1) TypeOf(("List[" + tuple + "]").c_str());  // steps of 2 and 3
    const int32_t candidate = TypeOf(("Optional[" + tuple + "]").c_str());
    if ((candidate - accepting) % 64 == 0) same_slot = candidate;
  }
  ASSERT_GE(same_slot, 0) << "no type found in Optional[Tensor]'s slot";
  Value built;
  TSB_ASSERT_OK(tsb_list_new(accepting, &t.get(), 1, built.out()));
  Value refused;
  Status s(tsb_list_new(same_slot, &t.get(), 1, refused.out()));
  ASSERT_NE(s.get(), nullptr) << "a Tensor crossed as itself under " << InfoOf(same_slot).annotation;
  EXPECT_EQ(tsb_status_get_code(s.get()), TSB_ERR_TYPE) << tsb_status_get_message(s.get());
  EXPECT_STREQ(tsb_status_get_path(s.get()), "[0]");
}

}  // namespace
}  // namespace tsb::testing
