// Every kind reads from JSON and prints back to the same JSON, nested too;
// and values built in C++ print as docs/json.md says.
#include <cmath>
#include <limits>

#include <ATen/ATen.h>

#include "tests/core/text/text_testing.h"

namespace tsb::testing {
namespace {

using JsonRoundTripTest = JsonTest;

TEST_F(JsonRoundTripTest, Scalars) {
  ExpectRoundTrip("null", "None");
  ExpectRoundTrip("true", "bool");
  ExpectRoundTrip("false", "bool");
  ExpectRoundTrip("-9223372036854775808", "int");
  ExpectRoundTrip("9223372036854775807", "int");
  ExpectRoundTrip("0.1", "float");
  ExpectRoundTrip("-0.0", "float");
  ExpectRoundTrip("1e+300", "float");
  ExpectRoundTrip("2.0", "float");
  ExpectRoundTrip("\"NaN\"", "float");
  ExpectRoundTrip("\"Infinity\"", "float");
  ExpectRoundTrip("\"-Infinity\"", "float");
  ExpectRoundTrip(R"({"real":1.5,"imag":-2.0})", "complex");
  ExpectRoundTrip(R"({"real":"NaN","imag":"Infinity"})", "complex");
  ExpectRoundTrip(R"("h\u00e9llo \"w\u00f6rld\"\n\t\u0000!")", "str");
  ExpectRoundTrip("\"\"", "str");
}

TEST_F(JsonRoundTripTest, FloatsKeepEveryBit) {
  for (double d : {0.1, 1.0 / 3.0, 5e-324, std::numeric_limits<double>::max(),
                   -123456.789e-200}) {
    std::string text = ToJson(tsb_any_float(d));
    Value back(FromJson(text, "float"));
    EXPECT_EQ(back.get().u.d, d) << text;
  }
  Value nan(FromJson("\"NaN\"", "float"));
  EXPECT_TRUE(std::isnan(nan.get().u.d));
}

TEST_F(JsonRoundTripTest, TorchEnums) {
  ExpectRoundTrip("\"cpu\"", "Device");
  ExpectRoundTrip("\"cuda:1\"", "Device");
  for (const char* dtype : {"\"uint8\"", "\"int8\"", "\"int16\"", "\"int32\"",
                            "\"int64\"", "\"float16\"", "\"float32\"", "\"float64\"",
                            "\"complex32\"", "\"complex64\"", "\"complex128\"",
                            "\"bool\"", "\"qint8\"", "\"quint8\"", "\"qint32\"",
                            "\"bfloat16\"", "\"quint4x2\"", "\"quint2x4\"", "\"undefined\""}) {
    ExpectRoundTrip(dtype, "ScalarType");
  }
  ExpectRoundTrip("\"torch.float64\"", "ScalarType", "\"float64\"");
  for (const char* layout : {"\"strided\"", "\"sparse_coo\"", "\"sparse_csr\"",
                             "\"_mkldnn\"", "\"sparse_csc\"", "\"sparse_bsr\"",
                             "\"sparse_bsc\""}) {
    ExpectRoundTrip(layout, "Layout");
  }
  for (const char* format : {"\"contiguous_format\"", "\"preserve_format\"",
                             "\"channels_last\"", "\"channels_last_3d\""}) {
    ExpectRoundTrip(format, "MemoryFormat");
  }
  // The type decides: the same IValue int prints as a dtype, or as an int.
  EXPECT_EQ(ToJson(tsb_any_dtype(6)), "\"float32\"");
  EXPECT_EQ(ToJson(tsb_any_int(6)), "6");
  EXPECT_EQ(ToJson(tsb_any_layout(1)), "\"sparse_coo\"");
  EXPECT_EQ(ToJson(tsb_any_memory_format(2)), "\"channels_last\"");
  EXPECT_EQ(ToJson(tsb_any_device(1, 0)), "\"cuda:0\"");
}

TEST_F(JsonRoundTripTest, TensorsOfEveryBuildableDtype) {
  ExpectRoundTrip(R"({"dtype":"float32","shape":[2,3],"data":[1.5,2.0,-3.0,0.25,"NaN","-Infinity"]})",
                  "Tensor");
  ExpectRoundTrip(R"({"dtype":"float64","shape":[2],"data":[0.1,1e-300]})", "Tensor");
  ExpectRoundTrip(R"({"dtype":"float16","shape":[2],"data":[0.5,65504.0]})", "Tensor");
  ExpectRoundTrip(R"({"dtype":"bfloat16","shape":[1],"data":[3.140625]})", "Tensor");
  ExpectRoundTrip(R"({"dtype":"int64","shape":[2],"data":[-9223372036854775808,9223372036854775807]})",
                  "Tensor");
  ExpectRoundTrip(R"({"dtype":"int32","shape":[2],"data":[-2147483648,2147483647]})", "Tensor");
  ExpectRoundTrip(R"({"dtype":"int16","shape":[1],"data":[-32768]})", "Tensor");
  ExpectRoundTrip(R"({"dtype":"int8","shape":[2],"data":[-128,127]})", "Tensor");
  ExpectRoundTrip(R"({"dtype":"uint8","shape":[2],"data":[0,255]})", "Tensor");
  ExpectRoundTrip(R"({"dtype":"bool","shape":[3],"data":[true,false,true]})", "Tensor");
  ExpectRoundTrip(R"({"dtype":"complex64","shape":[1],"data":[{"real":1.0,"imag":-2.0}]})",
                  "Tensor");
  ExpectRoundTrip(R"({"dtype":"complex128","shape":[2],"data":[{"real":0.1,"imag":0.0},{"real":"NaN","imag":1.0}]})",
                  "Tensor");
  // A scalar (0-d) tensor has one element; an empty one none.
  ExpectRoundTrip(R"({"dtype":"float32","shape":[],"data":[3.5]})", "Tensor");
  ExpectRoundTrip(R"({"dtype":"int64","shape":[0,3],"data":[]})", "Tensor");
  ExpectRoundTrip(R"({"dtype":"float32","shape":[2],"data":[1.0,2.0],"requires_grad":true})",
                  "Tensor");
  // requires_grad false is the default and is not printed.
  ExpectRoundTrip(R"({"dtype":"float32","shape":[1],"data":[1.0],"requires_grad":false})",
                  "Tensor", R"({"dtype":"float32","shape":[1],"data":[1.0]})");
  // Data given as ints reads into a float tensor and prints as floats.
  ExpectRoundTrip(R"({"dtype":"float64","shape":[2],"data":[1,2]})", "Tensor",
                  R"({"dtype":"float64","shape":[2],"data":[1.0,2.0]})");
}

TEST_F(JsonRoundTripTest, TensorFromCppIsRowMajorWhateverItsStrides) {
  at::Tensor t = at::arange(6, at::kLong).reshape({2, 3}).t();  // not contiguous
  Value v(Boundary(t));
  EXPECT_EQ(ToJson(v.get()), R"({"dtype":"int64","shape":[3,2],"data":[0,3,1,4,2,5]})");
  // The tensor read back has the same values and a fresh storage.
  Value back(FromJson(ToJson(v.get()), "Tensor"));
  EXPECT_TRUE(at::equal(FromBoundary(back.get()).toTensor(), t));
  // An undefined tensor prints as null (PyTorch shows it as None).
  Value undefined(Boundary(at::Tensor()));
  EXPECT_EQ(ToJson(undefined.get()), "null");
}

TEST_F(JsonRoundTripTest, ListsAndDicts) {
  ExpectRoundTrip("[1,2,3]", "List[int]");
  ExpectRoundTrip("[]", "List[Tensor]");
  ExpectRoundTrip("[[1.5],[],[2.0,3.0]]", "List[List[float]]");
  ExpectRoundTrip(R"(["a","b"])", "List[str]");
  ExpectRoundTrip("[true,false]", "List[bool]");
  ExpectRoundTrip(R"(["float32","int64"])", "List[ScalarType]");
  // Insertion order, not alphabetical order.
  ExpectRoundTrip(R"({"b":1,"a":2,"c":3})", "Dict[str, int]");
  ExpectRoundTrip("{}", "Dict[str, Tensor]");
  // Keys other than str: [key, value] pairs, in order.
  ExpectRoundTrip(R"([[3,"c"],[1,"a"]])", "Dict[int, str]");
  ExpectRoundTrip(R"([[0.5,1],["NaN",2]])", "Dict[float, int]");
  ExpectRoundTrip(R"([[true,1],[false,0]])", "Dict[bool, int]");
  ExpectRoundTrip(R"([[{"real":1.0,"imag":2.0},"z"]])", "Dict[complex, str]");
  ExpectRoundTrip(R"([[{"dtype":"int64","shape":[1],"data":[7]},"seven"]])",
                  "Dict[Tensor, str]");
  ExpectRoundTrip("[]", "Dict[int, int]");
  // A repeated key keeps its first position and its last value.
  ExpectRoundTrip(R"([[1,"a"],[2,"b"],[1,"c"]])", "Dict[int, str]", R"([[1,"c"],[2,"b"]])");
}

TEST_F(JsonRoundTripTest, PluginKinds) {
  ExpectRoundTrip(R"([1,"a",[2.5]])", "Tuple[int, str, List[float]]");
  ExpectRoundTrip("[]", "Tuple[()]");
  ExpectRoundTrip(R"([[1,[2,3]],null])", "Tuple[Tuple[int, List[int]], Optional[str]]");
  // NamedTuple: an object with its fields in order, from an object or an array.
  const std::string pair =
      R"({"first":{"dtype":"int64","shape":[1],"data":[1]},"second":{"dtype":"bool","shape":[0],"data":[]}})";
  ExpectRoundTrip(pair, "tsbridge.tensor_pair");
  ExpectRoundTrip(R"([{"dtype":"int64","shape":[1],"data":[1]},{"dtype":"bool","shape":[0],"data":[]}])",
                  "tsbridge.tensor_pair", pair);
  // Fields in another order read by name and print in the type's order.
  ExpectRoundTrip(
      R"({"second":{"dtype":"bool","shape":[0],"data":[]},"first":{"dtype":"int64","shape":[1],"data":[1]}})",
      "tsbridge.tensor_pair", pair);
  ExpectRoundTrip("null", "Optional[int]");
  ExpectRoundTrip("3", "Optional[int]");
  ExpectRoundTrip("[1,null,3]", "List[Optional[int]]");
  ExpectRoundTrip(R"([null,{"dtype":"float32","shape":[1],"data":[1.0]}])",
                  "List[Optional[Tensor]]");
  // A dtype is an int in an IValue: inside Optional it crosses, and prints,
  // as its code, which reads back (json fuzzer: "complex128" as
  // Optional[ScalarType] printed 10, which then did not read).
  ExpectRoundTrip("\"complex128\"", "Optional[ScalarType]", "10");
  ExpectRoundTrip("10", "Optional[ScalarType]");
  ExpectRoundTrip(R"(["float32",null])", "List[Optional[ScalarType]]", "[6,null]");
  ExpectRoundTrip("[6,null]", "List[Optional[ScalarType]]");
  ExpectRoundTrip("6", "ScalarType", "\"float32\"");
  ExpectRoundTrip("1", "Union[int, str]");
  ExpectRoundTrip("\"x\"", "Union[int, str]");
  ExpectRoundTrip(R"([1,"x",2])", "List[Union[int, str]]");
  // A float special is a float's form that complex accepts too: the float
  // member's where no member is str (differential test, Hypothesis 6.130).
  ExpectRoundTrip(R"([["Infinity","NaN",1.5,{"real":1.0,"imag":2.0}]])",
                  "List[List[Union[float, complex]]]");
  ExpectRoundTrip("\"-Infinity\"", "Union[complex, float]");
  ExpectRoundTrip("\"NaN\"", "Union[str, float]");
  Value pair_value(FromJson(pair, "tsbridge.tensor_pair"));
  EXPECT_EQ(pair_value.get().type_index, TypeOf("tsbridge.tensor_pair"));
}

TEST_F(JsonRoundTripTest, AnyAndScalar) {
  ExpectRoundTrip(R"([1,2.5,"x",null,true,{"a":[false]}])", "Any");
  ExpectRoundTrip("[1,2.5]", "List[Any]");
  ExpectRoundTrip(R"({"a":1,"b":"two"})", "Dict[str, Any]");
  ExpectRoundTrip("1", "Scalar");
  ExpectRoundTrip("1.5", "Scalar");
  ExpectRoundTrip(R"({"real":1.0,"imag":2.0})", "Scalar");
  ExpectRoundTrip("true", "Scalar");
}

TEST_F(JsonRoundTripTest, Nested) {
  ExpectRoundTrip(
      R"({"xs":[[1,null],[2,"b"]],"ys":[],"zs":[[3,"c"]]})",
      "Dict[str, List[Tuple[int, Optional[str]]]]");
  ExpectRoundTrip(
      R"([[[1,{"a":[{"dtype":"float32","shape":[2],"data":[1.0,2.0]}]}]],[]])",
      "List[Dict[int, Dict[str, List[Tensor]]]]");
  ExpectRoundTrip(
      R"([{"first":{"dtype":"float32","shape":[],"data":[1.0]},"second":{"dtype":"float32","shape":[],"data":[2.0]},"third":null}])",
      "List[tsbridge.tensor_triple]");
}

}  // namespace
}  // namespace tsb::testing
