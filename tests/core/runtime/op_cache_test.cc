// The overload choice of tsb_op_call is cached by the arguments' type
// indices and keyword names (core/runtime/operators.cc). These calls repeat
// one shape of call with values that change the answer: a cached choice
// must be checked on every hit, and give way when the values refute it.
#include <ATen/ATen.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/library.h>

#include "tests/core/runtime/runtime_testing.h"

namespace {

TORCH_LIBRARY(tsb_cache_test, m) {
  // (int): both convert it (cost 2); the dtype takes fewer defaults, but
  // only an int that names a dtype converts to one.
  m.def("pick.dtype(ScalarType d) -> int", [](at::ScalarType) -> int64_t { return 1; });
  m.def("pick.float(float x, int extra=0) -> int",
        [](double, int64_t) -> int64_t { return 2; });
  // (int, int): the dtype overload costs 2, the float one 3, so a dtype
  // that converts wins even after a call whose int did not.
  m.def("rank.dtype(ScalarType d, int y) -> int",
        [](at::ScalarType, int64_t) -> int64_t { return 1; });
  m.def("rank.float(float x, Scalar y) -> int",
        [](double, const at::Scalar&) -> int64_t { return 2; });
  m.def("widen(float x) -> float", [](double x) { return 2 * x; });
  m.def("kw(int a, int b=10) -> int", [](int64_t a, int64_t b) { return 100 * a + b; });
}

}  // namespace

namespace tsb::testing {
namespace {

using ::testing::HasSubstr;

class OpCacheTest : public AbiTest {
 protected:
  void SetUp() override {
    AbiTest::SetUp();
    LoadBundledPlugins();
  }

  int64_t IntCall(const char* op, const std::vector<tsb_any>& args,
                  const std::vector<Kw>& kw = {}) {
    Value out;
    Status s(CallOp(op, args, kw, out.out()));
    EXPECT_EQ(s.get(), nullptr) << tsb_status_get_message(s.get());
    EXPECT_EQ(out.get().type_index, TSB_TYPE_INT);
    return out.get().u.i;
  }
};

const int64_t kFloatCode = static_cast<int64_t>(at::ScalarType::Float);

// A hit whose check fails: the cached overload cannot take this value, so
// the call chooses again, and the next call with a fitting value still
// gets the cached one.
TEST_F(OpCacheTest, ACachedChoiceThatCannotTakeTheValueGivesWay) {
  EXPECT_EQ(IntCall("tsb_cache_test::pick", {tsb_any_int(kFloatCode)}), 1);
  EXPECT_EQ(IntCall("tsb_cache_test::pick", {tsb_any_int(kFloatCode)}), 1);
  EXPECT_EQ(IntCall("tsb_cache_test::pick", {tsb_any_int(1000)}), 2);  // no such dtype
  EXPECT_EQ(IntCall("tsb_cache_test::pick", {tsb_any_int(kFloatCode)}), 1);
  EXPECT_EQ(IntCall("tsb_cache_test::pick", {tsb_any_float(0.5)}), 2);  // another key
}

// The first call of this shape chose the costlier overload because the
// cheaper one refused its value; a later value the cheaper one takes must
// get the cheaper one, as a call without a cache would.
TEST_F(OpCacheTest, AnOverloadRefusedByValueStillWinsLater) {
  EXPECT_EQ(IntCall("tsb_cache_test::rank", {tsb_any_int(1000), tsb_any_int(1)}), 2);
  EXPECT_EQ(IntCall("tsb_cache_test::rank", {tsb_any_int(kFloatCode), tsb_any_int(1)}), 1);
  EXPECT_EQ(IntCall("tsb_cache_test::rank", {tsb_any_int(1000), tsb_any_int(1)}), 2);
  EXPECT_EQ(IntCall("tsb_cache_test::rank", {tsb_any_int(kFloatCode), tsb_any_int(1)}), 1);
}

// An int where a float is expected converts on every call, cached or not;
// a float of the same call shape is another key.
TEST_F(OpCacheTest, IntWidensToFloatOnEveryCall) {
  for (int64_t i : {3, 4, 3}) {
    Value out;
    TSB_ASSERT_OK(CallOp("tsb_cache_test::widen", {tsb_any_int(i)}, {}, out.out()));
    ASSERT_EQ(out.get().type_index, TSB_TYPE_FLOAT);
    EXPECT_EQ(out.get().u.d, 2.0 * static_cast<double>(i));
  }
  Value out;
  TSB_ASSERT_OK(CallOp("tsb_cache_test::widen", {tsb_any_float(1.25)}, {}, out.out()));
  EXPECT_EQ(out.get().u.d, 2.5);
  // aten::add with an int, then a float, then a tensor as `other`.
  Value a(Boundary(at::tensor({1.0, 2.0})));
  for (int round = 0; round < 2; ++round) {
    Value by_int, by_float, by_tensor;
    TSB_ASSERT_OK(CallOp("aten::add", {a.get(), tsb_any_int(2)}, {}, by_int.out()));
    EXPECT_TRUE(at::allclose(TensorOf(by_int.get()), at::tensor({3.0, 4.0})));
    TSB_ASSERT_OK(CallOp("aten::add", {a.get(), tsb_any_float(0.5)}, {}, by_float.out()));
    EXPECT_TRUE(at::allclose(TensorOf(by_float.get()), at::tensor({1.5, 2.5})));
    TSB_ASSERT_OK(CallOp("aten::add", {a.get(), a.get()}, {}, by_tensor.out()));
    EXPECT_TRUE(at::allclose(TensorOf(by_tensor.get()), at::tensor({2.0, 4.0})));
  }
}

// Keyword names are part of the key: each set and order of names binds by
// name, and defaults fill what is left.
TEST_F(OpCacheTest, KeywordArgumentsAreMatchedByName) {
  for (int round = 0; round < 2; ++round) {
    EXPECT_EQ(IntCall("tsb_cache_test::kw", {}, {{"a", tsb_any_int(1)}, {"b", tsb_any_int(2)}}),
              102);
    EXPECT_EQ(IntCall("tsb_cache_test::kw", {}, {{"b", tsb_any_int(3)}, {"a", tsb_any_int(4)}}),
              403);
    EXPECT_EQ(IntCall("tsb_cache_test::kw", {tsb_any_int(5)}), 510);
    EXPECT_EQ(IntCall("tsb_cache_test::kw", {tsb_any_int(6)}, {{"b", tsb_any_int(7)}}), 607);
    Value a(Boundary(at::tensor({1.0}))), b(Boundary(at::tensor({2.0})));
    Value alpha;
    TSB_ASSERT_OK(CallOp("aten::add", {a.get(), b.get()}, {{"alpha", tsb_any_int(3)}}, alpha.out()));
    EXPECT_TRUE(at::allclose(TensorOf(alpha.get()), at::tensor({7.0})));
  }
  // A name no overload has fails every time, and says why.
  for (int round = 0; round < 2; ++round) {
    Value out;
    Status s(CallOp("tsb_cache_test::kw", {tsb_any_int(1)}, {{"c", tsb_any_int(2)}},
                    out.out()));
    EXPECT_EQ(tsb_status_get_code(s.get()), TSB_ERR_TYPE);
    EXPECT_THAT(MessageOf(s), HasSubstr("unknown keyword argument 'c'"));
  }
}

}  // namespace
}  // namespace tsb::testing
