// What the call paths (core/call/call.cc, FunctionRegistry::Call) do to
// be cheap on success: a Binding reuses its thread's spare stack buffer, and
// a plugin function's result skips the coerce only when it is a leaf of
// exactly the declared type.
#include <thread>

#include <ATen/ATen.h>
#include <ATen/core/stack.h>
#include <gtest/gtest.h>

#include "core/plugins/function_registry.h"
#include "core/value/convert.h"
#include "tests/core/runtime/runtime_testing.h"

namespace tsb::testing {
namespace {

using call::Binding;
using plugins::FunctionRegistry;
using plugins::PluginFunction;

TEST(BindingStackTest, SpareBufferComesBackEmptyAndIsReused) {
  at::Tensor t = at::ones({2});
  const c10::IValue* buffer = nullptr;
  {
    Binding first;
    first.stack.reserve(8);
    first.stack.push_back(t);
    buffer = first.stack.data();
    EXPECT_EQ(t.use_count(), 2);
  }
  // The values are released with the Binding, not kept in the spare.
  EXPECT_EQ(t.use_count(), 1);
  Binding next;
  EXPECT_TRUE(next.stack.empty());
  EXPECT_EQ(next.stack.data(), buffer);
  EXPECT_GE(next.stack.capacity(), 8u);
}

TEST(BindingStackTest, TwoBindingsAliveDoNotShareABuffer) {
  { Binding warm; warm.stack.reserve(4); }
  Binding outer;
  ASSERT_GE(outer.stack.capacity(), 4u);
  Binding inner;  // a nested call: the spare is taken
  EXPECT_EQ(inner.stack.capacity(), 0u);
  inner.stack.push_back(c10::IValue(int64_t{1}));
  EXPECT_NE(inner.stack.data(), outer.stack.data());
}

TEST(BindingStackTest, LargeStacksAreNotKept) {
  { Binding big; big.stack.reserve(1000); }
  Binding next;
  EXPECT_LT(next.stack.capacity(), 1000u);
}

TEST(BindingStackTest, EachThreadHasItsOwnSpare) {
  const c10::IValue* mine = nullptr;
  {
    Binding b;
    b.stack.reserve(4);
    mine = b.stack.data();
  }
  const c10::IValue* theirs = nullptr;
  std::thread([&] {
    Binding b;
    theirs = b.stack.data();  // nothing spare on a new thread
  }).join();
  EXPECT_EQ(theirs, nullptr);
  Binding again;
  EXPECT_EQ(again.stack.data(), mine);
}

TEST(LeafTypeIndexTest, LeavesAndOthers) {
  EXPECT_EQ(LeafTypeIndex(c10::IValue()), TSB_TYPE_NONE);
  EXPECT_EQ(LeafTypeIndex(c10::IValue(true)), TSB_TYPE_BOOL);
  EXPECT_EQ(LeafTypeIndex(c10::IValue(int64_t{3})), TSB_TYPE_INT);
  EXPECT_EQ(LeafTypeIndex(c10::IValue(0.5)), TSB_TYPE_FLOAT);
  EXPECT_EQ(LeafTypeIndex(c10::IValue(c10::complex<double>(1, 2))), TSB_TYPE_COMPLEX);
  EXPECT_EQ(LeafTypeIndex(c10::IValue("s")), TSB_TYPE_STR);
  EXPECT_EQ(LeafTypeIndex(c10::IValue(at::ones({1}))), TSB_TYPE_TENSOR);
  EXPECT_EQ(LeafTypeIndex(c10::IValue(c10::Device("cpu"))), TSB_TYPE_DEVICE);
  EXPECT_EQ(LeafTypeIndex(c10::IValue(std::vector<int64_t>{1})), TSB_TYPE_INVALID);
}

// A plugin function written without the SDK, leaving `*data` on the stack.
tsb_status* Leave(void* data, void* stack) {
  auto& values = *static_cast<torch::jit::Stack*>(stack);
  values.clear();
  values.push_back(*static_cast<const c10::IValue*>(data));
  return nullptr;
}

// Registers `name` (once per process: tests may repeat) returning `returns`.
void Register(const char* name, c10::TypePtr returns, c10::IValue* left) {
  if (FunctionRegistry::Global().Find(name) != nullptr) return;
  PluginFunction f;
  f.name = name;
  f.return_type = std::move(returns);
  f.fn = &Leave;
  f.data = left;
  f.plugin = "call_test";
  absl::Status registered = FunctionRegistry::Global().Register(std::move(f));
  ASSERT_TRUE(registered.ok()) << registered;
}

// Registers `name` returning `returns` (no parameters) and calls it.
void CallReturning(const char* name, c10::TypePtr returns, c10::IValue* left, tsb_any* out) {
  Register(name, std::move(returns), left);
  const PluginFunction* found = FunctionRegistry::Global().Find(name);
  ASSERT_NE(found, nullptr);
  absl::Status called = FunctionRegistry::Call(*found, call::HostArgs(), out);
  ASSERT_TRUE(called.ok()) << called;
}

TEST(FunctionResultTest, LeafOfAnotherTypeIsStillCoerced) {
  // An int where float is declared converts; where a dtype is declared it
  // crosses as the dtype, though its IValue is an int too.
  static c10::IValue three(int64_t{3});
  static c10::IValue six(int64_t{6});  // torch.float32
  Value as_float, as_dtype, as_int;
  CallReturning("call_test::int_as_float", c10::FloatType::get(), &three, as_float.out());
  EXPECT_EQ(as_float.get().type_index, TSB_TYPE_FLOAT);
  EXPECT_EQ(as_float.get().u.d, 3.0);
  CallReturning("call_test::int_as_dtype", c10::getTypePtr<c10::ScalarType>(), &six,
                as_dtype.out());
  EXPECT_EQ(as_dtype.get().type_index, TSB_TYPE_DTYPE);
  EXPECT_EQ(as_dtype.get().u.i, 6);
  CallReturning("call_test::int_as_int", c10::IntType::get(), &three, as_int.out());
  EXPECT_EQ(as_int.get().type_index, TSB_TYPE_INT);
  EXPECT_EQ(as_int.get().u.i, 3);
}

TEST(FunctionResultTest, WrongLeafIsRefused) {
  static c10::IValue text("x");
  Register("call_test::str_as_tensor", c10::TensorType::get(), &text);
  tsb_any out{};
  absl::Status called = FunctionRegistry::Call(
      *FunctionRegistry::Global().Find("call_test::str_as_tensor"), call::HostArgs(), &out);
  EXPECT_FALSE(called.ok());
  EXPECT_EQ(called.message(), "expected Tensor, got str \"x\"");
  EXPECT_EQ(PathOf(called), "call_test::str_as_tensor(): result");
}

}  // namespace
}  // namespace tsb::testing
