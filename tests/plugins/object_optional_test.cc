// Optional attributes of TorchScript class instances, read with
// tsb_any_get_field once plugins/optional is loaded: a value crosses as its own
// type (None, or the object). tests/core/codecs/enum_object_test.cc covers the rest.
#include "tests/plugins/plugin_testing.h"
#include "tests/testing/script_objects.h"

namespace tsb::testing {
namespace {

using ObjectOptionalTest = PluginTest;

TEST_F(ObjectOptionalTest, OptionalFieldOfAnotherClass) {
  torch::jit::Module module = LoadFixture();
  Value with(Boundary(Call(module, "node", {true})));
  Value next;
  TSB_ASSERT_OK(tsb_any_get_field(&with.get(), "next", next.out()));
  EXPECT_STREQ(InfoOf(next.get().type_index).name, "__torch__.Point");
  Value x;
  TSB_ASSERT_OK(tsb_any_get_field(&next.get(), "x", x.out()));
  EXPECT_EQ(x.get().u.i, 3);

  Value without(Boundary(Call(module, "node", {false})));
  Value none;
  TSB_ASSERT_OK(tsb_any_get_field(&without.get(), "next", none.out()));
  EXPECT_EQ(none.get().type_index, TSB_TYPE_NONE);
}

TEST_F(ObjectOptionalTest, SelfReferentialChain) {
  RecursiveClass rec;
  Value head(Boundary(rec.Make(1, rec.Make(2))));
  Value second;
  TSB_ASSERT_OK(tsb_any_get_field(&head.get(), "next", second.out()));
  EXPECT_EQ(second.get().type_index, head.get().type_index);
  Value value;
  TSB_ASSERT_OK(tsb_any_get_field(&second.get(), "value", value.out()));
  EXPECT_EQ(value.get().u.i, 2);
  Value end;
  TSB_ASSERT_OK(tsb_any_get_field(&second.get(), "next", end.out()));
  EXPECT_EQ(end.get().type_index, TSB_TYPE_NONE);
}

}  // namespace
}  // namespace tsb::testing
