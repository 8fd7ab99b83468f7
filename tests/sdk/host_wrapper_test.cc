// tsbridge.hpp, the header-only C++ host layer: ownership (no handle leaks,
// copies retain), Check's exception with the status's parts, checked calls.
#include "tsbridge/host/tsbridge.hpp"

#include <gtest/gtest.h>

#include "tests/testing/abi_test.h"

namespace tsb::testing {
namespace {

using HostWrapperTest = AbiTest;

TEST_F(HostWrapperTest, ValuesOwnOneReference) {
  tsb::Value s = tsb::Value::Str("hello");
  size_t live = tsb::LiveHandles();
  {
    tsb::Value copy = s;  // retains: same handle, one more reference
    tsb::Value moved = std::move(copy);
    EXPECT_EQ(moved.type_index(), TSB_TYPE_STR);
    EXPECT_EQ(copy.type_index(), TSB_TYPE_INVALID);
  }
  EXPECT_EQ(tsb::LiveHandles(), live);
  EXPECT_EQ(s.ToJson(), "\"hello\"");
  EXPECT_EQ(tsb::Value::FromJson("[1, 2]", TypeOf("List[int]")).ToJson(), "[1,2]");
}

TEST_F(HostWrapperTest, CheckThrowsTheStatusParts) {
  try {
    tsb::Value::FromJson("[1, \"x\"]", TypeOf("List[int]"));
    FAIL() << "no exception";
  } catch (const tsb::Error& e) {
    EXPECT_EQ(e.code(), TSB_ERR_TYPE);
    EXPECT_EQ(e.path(), "[1]");
    EXPECT_EQ(e.detail(), "expected int, got JSON string \"x\"");
  }
  tsb::Status ok(nullptr);
  EXPECT_TRUE(ok.ok());
  EXPECT_EQ(ok.code(), TSB_OK);
}

TEST_F(HostWrapperTest, ModulesAndOperatorsAreCalledWithArgs) {
  tsb::Module m = tsb::Module::Compile(
      "def twice(self, a: int, b: int = 1) -> int:\n    return a * 2 + b\n");
  ASSERT_EQ(m.Methods().size(), 1u);
  EXPECT_STREQ(m.Methods()[0].name, "twice");
  EXPECT_EQ(m.Call("twice", tsb::Args().Add(int64_t{4})).get().u.i, 9);
  EXPECT_EQ(m.Call("twice", tsb::Args().Add(int64_t{4}).Kw("b", int64_t{0})).get().u.i, 8);
  EXPECT_EQ(tsb::CallOperator("aten::add", tsb::Args().Add(int64_t{1}).Add(int64_t{2}))
                .get()
                .u.i,
            3);
  EXPECT_THROW(m.Call("twice"), tsb::Error);
}

}  // namespace
}  // namespace tsb::testing
