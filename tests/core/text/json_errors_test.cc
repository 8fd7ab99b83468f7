// Every way tsb_json_read refuses input, with its exact code, path and
// detail; malformed and hostile documents never crash.
#include <string>

#include <c10/core/ScalarType.h>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "tests/core/text/text_testing.h"

namespace tsb::testing {
namespace {

using JsonErrorsTest = JsonTest;

TEST_F(JsonErrorsTest, ScalarMismatches) {
  ExpectError("\"x\"", "int", "", "expected int, got JSON string \"x\"");
  ExpectError("1.5", "int", "", "expected int, got JSON number 1.5");
  ExpectError("1.0", "int", "", "expected int, got JSON number 1.0");
  ExpectError("true", "int", "", "expected int, got JSON true");
  // Above INT64_MAX an int is a uint (tests/core/codecs/uint_test.cc, ABI 1.6);
  // past UINT64_MAX JSON has only a float.
  ExpectError("18446744073709551616", "int", "",
              "expected int, got JSON number 1.8446744073709552e+19");
  ExpectError("null", "float", "", "expected float, got JSON null");
  ExpectError("\"nan\"", "float", "", "expected float, got JSON string \"nan\"");
  ExpectError("1", "bool", "", "expected bool, got JSON number 1");
  ExpectError("0", "None", "", "expected NoneType, got JSON number 0");
  ExpectError("[]", "str", "", "expected str, got JSON array of 0 elements");
  ExpectError("{\"real\":1}", "complex", "", "complex object without key \"imag\"");
  ExpectError("{\"real\":1,\"imag\":2,\"x\":3}", "complex", "",
              "unknown key \"x\" in complex object (keys: real, imag)");
  ExpectError("{\"real\":1,\"imag\":\"i\"}", "complex", "key \"imag\"",
              "expected float, got JSON string \"i\"");
  ExpectError("\"gpu\"", "Device", "",
              "expected Device, got JSON string \"gpu\", which does not name a device");
  ExpectError("\"float33\"", "ScalarType", "",
              "expected ScalarType, got JSON string \"float33\", which is not a ScalarType name");
  // The first code past the last dtype (19 on LibTorch 1.13, 45 on 2.6).
  const std::string past = absl::StrCat(static_cast<int>(c10::ScalarType::NumOptions));
  ExpectError(past, "ScalarType", "",
              absl::StrCat("expected ScalarType, got JSON number ", past,
                           ", which is not a ScalarType code"));
  ExpectError("1.5", "ScalarType", "", "expected ScalarType, got JSON number 1.5");
  // LibTorch spells Scalar "number".
  ExpectError("\"x\"", "Scalar", "", "expected number, got JSON string \"x\"");
}

TEST_F(JsonErrorsTest, PathsIntoContainers) {
  // The example of docs/json.md.
  ExpectError(R"([{}, {}, {"a": 1, "b": "x"}])", "List[Dict[str, int]]", "[2] → key \"b\"",
              "expected int, got JSON string \"x\"");
  ExpectError("{\"a\": 1}", "List[int]", "", "expected List[int], got JSON object with 1 key");
  ExpectError("[1, [2, \"x\"]]", "Tuple[int, List[int]]", "[1] → [1]",
              "expected int, got JSON string \"x\"");
  ExpectError("[1, 2, 3]", "Tuple[int, int]", "",
              "expected Tuple[int, int], got JSON array of 3 elements, which needs 2 elements");
  ExpectError("[[1, \"a\"], [2, 3]]", "Dict[int, str]", "key 2",
              "expected str, got JSON number 3");
  ExpectError("[[\"x\", \"a\"]]", "Dict[int, str]", "[0] → [0]",
              "expected int, got JSON string \"x\"");
  ExpectError("[[1, \"a\"], [2]]", "Dict[int, str]", "[1]",
              "expected a [key, value] pair, got JSON array of 1 element");
  ExpectError("{\"1\": \"a\"}", "Dict[int, str]", "",
              "expected Dict[int, str], got JSON object with 1 key (a Dict whose keys are "
              "not str is a JSON array of [key, value] pairs)");
  ExpectError("[[\"a\", 1]]", "Dict[str, int]", "",
              "expected Dict[str, int], got JSON array of 1 element");
  ExpectError("[1, \"x\"]", "List[Optional[int]]", "[1]",
              "expected Optional[int], got JSON string \"x\"");
  ExpectError("\"x\"", "Optional[int]", "", "expected Optional[int], got JSON string \"x\"");
  ExpectError("\"gpu\"", "Optional[Device]", "",
              "expected Optional[Device], got JSON string \"gpu\", which does not name a device");
}

TEST_F(JsonErrorsTest, NamedTuples) {
  ExpectError(R"({"first": null})", "tsbridge.tensor_pair", "field 'first'",
              "expected Tensor, got JSON null");
  ExpectError(R"({"first": {"dtype": "int64", "shape": [], "data": [1]}})",
              "tsbridge.tensor_pair", "", "missing field 'second' of tsbridge.tensor_pair");
  ExpectError(R"({"first": 1, "second": 2, "third": 3})", "tsbridge.tensor_pair", "",
              "tsbridge.tensor_pair has no field 'third' (fields: first, second)");
  ExpectError("[null]", "tsbridge.tensor_pair", "",
              "expected tsbridge.tensor_pair, got JSON array of 1 element, which needs 2 "
              "elements");
  ExpectError("[1, null]", "tsbridge.tensor_pair", "field 'first'",
              "expected Tensor, got JSON number 1");
  ExpectError("\"x\"", "Tuple[int]", "", "expected Tuple[int], got JSON string \"x\"");
}

TEST_F(JsonErrorsTest, Unions) {
  ExpectError("1.5", "Union[int, str]", "", "expected Union[int, str], got JSON number 1.5");
  ExpectError("1", "Union[float, complex]", "",
              "ambiguous: int 1 matches Union[float, complex] members float, complex");
  // One member fails deeper down: its error is the useful one.
  ExpectError("[1, \"x\"]", "Union[List[int], str]", "[1]",
              "expected int, got JSON string \"x\"");
}

TEST_F(JsonErrorsTest, Tensors) {
  ExpectError("[1.0]", "Tensor", "", "expected Tensor, got JSON array of 1 element");
  ExpectError(R"({"dtype": "float32", "data": []})", "Tensor", "",
              "Tensor object without key \"shape\"");
  ExpectError(R"({"dtype": "float32", "shape": [], "data": [1], "grad": 1})", "Tensor", "",
              "unknown key \"grad\" in Tensor object (keys: dtype, shape, data, device, "
              "requires_grad)");
  ExpectError(R"({"dtype": "float", "shape": [], "data": [1]})", "Tensor", "key \"dtype\"",
              "expected a dtype name such as \"float32\", got JSON string \"float\"");
  ExpectError(R"({"dtype": "qint8", "shape": [], "data": [1]})", "Tensor", "key \"dtype\"",
              "a qint8 tensor cannot be built from JSON", TSB_ERR_UNSUPPORTED);
  ExpectError(R"({"dtype": "int64", "shape": [2, -1], "data": []})", "Tensor",
              "key \"shape\" → [1]", "expected a size (an int >= 0), got JSON number -1");
  ExpectError(R"({"dtype": "int64", "shape": 2, "data": []})", "Tensor", "key \"shape\"",
              "expected a JSON array of sizes, got JSON number 2");
  ExpectError(R"({"dtype": "int64", "shape": [2, 3], "data": [1, 2]})", "Tensor",
              "key \"data\"", "shape [2, 3] needs 6 elements, got JSON array of 2 elements");
  ExpectError(R"({"dtype": "int64", "shape": [4294967296, 4294967296], "data": []})",
              "Tensor", "key \"data\"",
              "shape [4294967296, 4294967296] needs more than 2^64 elements, got JSON array "
              "of 0 elements");
  ExpectError(R"({"dtype": "int64", "shape": [2], "data": [1, 2.5]})", "Tensor",
              "key \"data\" → [1]", "expected int64, got JSON number 2.5");
  ExpectError(R"({"dtype": "uint8", "shape": [1], "data": [256]})", "Tensor",
              "key \"data\" → [0]",
              "expected uint8, got JSON number 256, which is out of range for uint8");
  ExpectError(R"({"dtype": "int8", "shape": [1], "data": [-129]})", "Tensor",
              "key \"data\" → [0]",
              "expected int8, got JSON number -129, which is out of range for int8");
  ExpectError(R"({"dtype": "bool", "shape": [1], "data": [1]})", "Tensor",
              "key \"data\" → [0]", "expected bool, got JSON number 1");
  ExpectError(R"({"dtype": "float32", "shape": [1], "data": ["x"]})", "Tensor",
              "key \"data\" → [0]", "expected float32, got JSON string \"x\"");
  ExpectError(R"({"dtype": "int64", "shape": [1], "data": [1], "requires_grad": true})",
              "Tensor", "key \"requires_grad\"",
              "a int64 tensor cannot require gradients (only floating point and complex "
              "ones can)");
  ExpectError(R"({"dtype": "int64", "shape": [1], "data": [1], "device": "gpu"})", "Tensor",
              "key \"device\"",
              "expected Device, got JSON string \"gpu\", which does not name a device");
  ExpectError(R"([{"dtype": "float32", "shape": [1], "data": [null]}])", "List[Tensor]",
              "[0] → key \"data\" → [0]", "expected float32, got JSON null");
}

TEST_F(JsonErrorsTest, MalformedJsonReportsWhereAndNeverCrashes) {
  ExpectError("[1, 2", "List[int]", "",
              "invalid JSON (byte 6): parse error at line 1, column 6: syntax error while "
              "parsing array - unexpected end of input; expected ']'",
              TSB_ERR_INVALID_ARGUMENT);
  // nlohmann-json's own words, which 3.11.3 (Debian 13) changed for this.
#if NLOHMANN_JSON_VERSION_MAJOR * 10000 + NLOHMANN_JSON_VERSION_MINOR * 100 + \
        NLOHMANN_JSON_VERSION_PATCH >= 31103
  ExpectError("", "int", "",
              "invalid JSON (byte 1): parse error at line 1, column 1: attempting to parse an "
              "empty input; check that your input string or stream contains the expected JSON",
              TSB_ERR_INVALID_ARGUMENT);
#else
  ExpectError("", "int", "",
              "invalid JSON (byte 1): parse error at line 1, column 1: syntax error while "
              "parsing value - unexpected end of input; expected '[', '{', or a literal",
              TSB_ERR_INVALID_ARGUMENT);
#endif
  for (const char* bad : {"nul", "{\"a\":}", "1 2", "[1,]", "{'a': 1}", "NaN", "\"\xff\"",
                          "\"unterminated", "01", "[1e99999]"}) {
    tsb_any out{};
    Status s(tsb_json_read(bad, TypeOf("Any"), &out));
    ASSERT_NE(s.get(), nullptr) << bad;
    EXPECT_EQ(tsb_status_get_code(s.get()), TSB_ERR_INVALID_ARGUMENT) << bad;
    EXPECT_EQ(std::string(tsb_status_get_detail(s.get())).rfind("invalid JSON", 0), 0u)
        << tsb_status_get_message(s.get());
  }
}

TEST_F(JsonErrorsTest, DeepNestingIsRefusedNotOverflowed) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  for (const char* type : {"Any", "List[Any]"}) {
    tsb_any out{};
    Status s(tsb_json_read(deep.c_str(), TypeOf(type), &out));
    ASSERT_NE(s.get(), nullptr);
    EXPECT_EQ(tsb_status_get_code(s.get()), TSB_ERR_INVALID_ARGUMENT);
    EXPECT_STREQ(tsb_status_get_detail(s.get()), "JSON nested deeper than 512 levels");
  }
  // 500 levels are fine.
  const std::string ok = std::string(500, '[') + std::string(500, ']');
  Value v(FromJson(ok, "Any"));
  EXPECT_EQ(Canonical(ToJson(v.get())), Canonical(ok));
}

TEST_F(JsonErrorsTest, BadArguments) {
  tsb_any out{};
  Status null_json(tsb_json_read(nullptr, TSB_TYPE_INT, &out));
  EXPECT_EQ(tsb_status_get_code(null_json.get()), TSB_ERR_INVALID_ARGUMENT);
  Status null_out(tsb_json_read("1", TSB_TYPE_INT, nullptr));
  EXPECT_EQ(tsb_status_get_code(null_out.get()), TSB_ERR_INVALID_ARGUMENT);
  Status bad_type(tsb_json_read("1", 12345, &out));
  EXPECT_EQ(tsb_status_get_code(bad_type.get()), TSB_ERR_NOT_FOUND);
  char* text = nullptr;
  Status null_value(tsb_json_write(nullptr, &text));
  EXPECT_EQ(tsb_status_get_code(null_value.get()), TSB_ERR_INVALID_ARGUMENT);
  tsb_any one = tsb_any_int(1);
  Status null_text(tsb_json_write(&one, nullptr));
  EXPECT_EQ(tsb_status_get_code(null_text.get()), TSB_ERR_INVALID_ARGUMENT);
  tsb_any bad_dtype = tsb_any_dtype(99);
  Status invalid(tsb_json_write(&bad_dtype, &text));
  EXPECT_EQ(tsb_status_get_code(invalid.get()), TSB_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(text, nullptr);
}

}  // namespace
}  // namespace tsb::testing
