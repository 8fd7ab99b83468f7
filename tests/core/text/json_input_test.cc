// Reading is type-directed: the expected type, not the JSON, decides what a
// value becomes.
#include <ATen/ATen.h>

#include "tests/core/text/text_testing.h"
#include "tsbridge/host/tsbridge.hpp"

namespace tsb::testing {
namespace {

using JsonInputTest = JsonTest;

TEST_F(JsonInputTest, NumbersFollowTheExpectedType) {
  Value as_float(FromJson("1", "float"));
  EXPECT_EQ(as_float.get().type_index, TSB_TYPE_FLOAT);
  EXPECT_EQ(as_float.get().u.d, 1.0);
  EXPECT_EQ(ToJson(as_float.get()), "1.0");
  Value as_int(FromJson("1", "int"));
  EXPECT_EQ(as_int.get().type_index, TSB_TYPE_INT);
  EXPECT_EQ(ToJson(as_int.get()), "1");
  Value as_complex(FromJson("1", "complex"));
  EXPECT_EQ(as_complex.get().type_index, TSB_TYPE_COMPLEX);
  EXPECT_EQ(ToJson(as_complex.get()), R"({"real":1.0,"imag":0.0})");
  EXPECT_EQ(ReadsAs("2", "Optional[float]"), TSB_TYPE_FLOAT);
  Value floats(FromJson("[1,2]", "List[float]"));
  EXPECT_EQ(floats.get().type_index, TypeOf("List[float]"));
  EXPECT_EQ(ToJson(floats.get()), "[1.0,2.0]");
}

TEST_F(JsonInputTest, ArraysAreListsOrTuplesByTheExpectedType) {
  Value list(FromJson("[1,2]", "List[int]"));
  EXPECT_EQ(list.get().type_index, TypeOf("List[int]"));
  EXPECT_EQ(::tsb::KindOf(list.get().type_index), TSB_KIND_LIST);
  Value tuple(FromJson("[1,2]", "Tuple[int, int]"));
  EXPECT_EQ(tuple.get().type_index, TypeOf("Tuple[int, int]"));
  EXPECT_EQ(::tsb::KindOf(tuple.get().type_index), TSB_KIND_TUPLE);
  // The built containers carry the expected types all the way down.
  Value nested(FromJson("[[1,null]]", "List[Tuple[int, Optional[str]]]"));
  EXPECT_EQ(nested.get().type_index, TypeOf("List[Tuple[int, Optional[str]]]"));
  c10::IValue iv = FromBoundary(nested.get());
  EXPECT_EQ(iv.type()->annotation_str(), "List[Tuple[int, Optional[str]]]");
  EXPECT_EQ(iv.toList().get(0).type()->annotation_str(), "Tuple[int, Optional[str]]");
}

TEST_F(JsonInputTest, StringsNameDevicesAndDtypesOnlyWhenExpected) {
  Value device(FromJson("\"cuda:1\"", "Device"));
  int32_t type = 0, index = 0;
  TSB_ASSERT_OK(tsb_device_get(&device.get(), &type, &index));
  EXPECT_EQ(type, 1);
  EXPECT_EQ(index, 1);
  Value dtype(FromJson("\"bfloat16\"", "ScalarType"));
  EXPECT_EQ(dtype.get().type_index, TSB_TYPE_DTYPE);
  EXPECT_EQ(dtype.get().u.i, static_cast<int64_t>(at::kBFloat16));
  EXPECT_EQ(ReadsAs("\"cpu\"", "str"), TSB_TYPE_STR);
  EXPECT_EQ(ReadsAs("\"cpu\"", "Any"), TSB_TYPE_STR);
}

TEST_F(JsonInputTest, UnionPicksTheOneMemberThatReads) {
  EXPECT_EQ(ReadsAs("1", "Union[int, str]"), TSB_TYPE_INT);
  EXPECT_EQ(ReadsAs("\"1\"", "Union[int, str]"), TSB_TYPE_STR);
  EXPECT_EQ(ReadsAs(R"({"dtype":"int64","shape":[],"data":[1]})", "Union[Tensor, int]"),
            TSB_TYPE_TENSOR);
  EXPECT_EQ(ReadsAs("null", "Union[int, str, None]"), TSB_TYPE_NONE);
}

TEST_F(JsonInputTest, UnionTiesGoToTheJsonsOwnType) {
  // 1 reads as int and as float: the JSON's own type, int, is a member.
  EXPECT_EQ(ReadsAs("1", "Union[int, float]"), TSB_TYPE_INT);
  EXPECT_EQ(ReadsAs("1.0", "Union[int, float]"), TSB_TYPE_FLOAT);
  EXPECT_EQ(ReadsAs("1.5", "Union[int, float]"), TSB_TYPE_FLOAT);
  // "cpu" names a Device but is a str.
  EXPECT_EQ(ReadsAs("\"cpu\"", "Union[Device, str]"), TSB_TYPE_STR);
  // "NaN" is a float only where no str is expected.
  EXPECT_EQ(ReadsAs("\"NaN\"", "Union[float, str]"), TSB_TYPE_STR);
  EXPECT_EQ(ReadsAs("\"NaN\"", "Union[float, int]"), TSB_TYPE_FLOAT);
  // An array reads as a List and as a Tuple: a JSON array is a list.
  Value list(FromJson("[1,2]", "Union[List[int], Tuple[int, int]]"));
  EXPECT_EQ(list.get().type_index, TypeOf("List[int]"));
}

TEST_F(JsonInputTest, ScalarAndAnyInferFromTheJson) {
  EXPECT_EQ(ReadsAs("1", "Scalar"), TSB_TYPE_INT);
  EXPECT_EQ(ReadsAs("1.0", "Scalar"), TSB_TYPE_FLOAT);
  EXPECT_EQ(ReadsAs(R"({"real":0.0,"imag":1.0})", "Scalar"), TSB_TYPE_COMPLEX);
  EXPECT_EQ(ReadsAs(R"([1,"a"])", "Any"), TypeOf("List[Any]"));
  EXPECT_EQ(ReadsAs(R"({"a":1})", "Any"), TypeOf("Dict[str, Any]"));
  // Any never reads a tensor object as a Tensor: it is a Dict[str, Any].
  EXPECT_EQ(ReadsAs(R"({"dtype":"int64","shape":[],"data":[1]})", "Any"), TypeOf("Dict[str, Any]"));
  // An Any-typed value can then be coerced like any host-built value.
  Value ints(FromJson("[1, 2]", "Any"));
  Value typed;
  TSB_ASSERT_OK(tsb_any_coerce(&ints.get(), TypeOf("List[float]"), typed.out()));
  EXPECT_EQ(ToJson(typed.get()), "[1.0,2.0]");
}

TEST_F(JsonInputTest, TensorOptionsAndDtypeConversion) {
  Value t(FromJson(R"({"dtype":"float16","shape":[2,2],"data":[1,2.5,"Infinity",-0.0]})",
                   "Tensor"));
  at::Tensor tensor = FromBoundary(t.get()).toTensor();
  EXPECT_EQ(tensor.scalar_type(), at::kHalf);
  EXPECT_EQ(tensor.sizes(), (std::vector<int64_t>{2, 2}));
  EXPECT_TRUE(tensor.is_contiguous());
  EXPECT_FALSE(tensor.requires_grad());
  EXPECT_EQ(tensor[1][0].item<double>(), std::numeric_limits<double>::infinity());
  Value g(FromJson(R"({"dtype":"float32","shape":[1],"data":[1],"requires_grad":true,"device":"cpu"})",
                   "Tensor"));
  EXPECT_TRUE(FromBoundary(g.get()).toTensor().requires_grad());
  // A complex tensor's data may use plain numbers for real values.
  Value c(FromJson(R"({"dtype":"complex64","shape":[2],"data":[1,{"real":0,"imag":2}]})",
                   "Tensor"));
  EXPECT_EQ(ToJson(c.get()),
            R"({"dtype":"complex64","shape":[2],"data":[{"real":1.0,"imag":0.0},{"real":0.0,"imag":2.0}]})");
}

TEST_F(JsonInputTest, NamedTupleFieldsMayComeInAnyOrder) {
  Value v(FromJson(R"({"third":null,"second":{"dtype":"int64","shape":[],"data":[2]},"first":{"dtype":"int64","shape":[],"data":[1]}})",
                   "tsbridge.tensor_triple"));
  Value first;
  TSB_ASSERT_OK(tsb_any_get_field(&v.get(), "first", first.out()));
  EXPECT_EQ(FromBoundary(first.get()).toTensor().item<int64_t>(), 1);
}

}  // namespace
}  // namespace tsb::testing
