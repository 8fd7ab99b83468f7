// The direct typed-JSON routes of tsb serve (hosts/serve/typed_json.h) held
// to the text ones they stand in for: the same value (type and JSON) both
// ways where the direct route takes it, the text's own answer (value or
// error) where it leaves it, and nothing leaked either way.
#include "hosts/serve/typed_json.h"

#include <gtest/gtest.h>

#include <string>

#include "tsbridge/host/kit.hpp"

namespace tsb::serve {
namespace {

// The kit's and the server's errors as test failures (neither is a
// std::exception, which is all gtest reports).
template <typename Body>
void Reported(Body&& body) {
  try {
    body();
  } catch (const kit::ConvertError& e) {
    ADD_FAILURE() << "kit::ConvertError: " << e.Message();
  } catch (const HttpError& e) {
    ADD_FAILURE() << "HttpError " << e.status << ": " << e.message;
  }
}

int32_t TypeOf(const char* annotation) {
  // Tuple, Optional and Union's codecs, offered as tsb serve offers them.
  static const bool offered = (kit::CheckStatus(tsb_plugin_defer_bundled()), true);
  (void)offered;
  int32_t type = TSB_TYPE_INVALID;
  kit::CheckStatus(tsb_type_parse(annotation, &type));
  return type;
}

std::string TextOf(const tsb_any& value) {
  char* text = nullptr;
  kit::CheckStatus(tsb_json_write(&value, &text));
  std::string out = text;
  tsb_string_free(text);
  return out;
}

size_t Handles() {
  size_t n = 0;
  kit::CheckStatus(tsb_handle_count(&n));
  return n;
}

struct ReadCase {
  const char* type;
  const char* json;
  bool direct;  // whether the direct route takes it
};

// Reads `c` both ways and compares; returns the text route's error, if any.
void CheckRead(const ReadCase& c) {
  SCOPED_TRACE(std::string(c.type) + " <- " + c.json);
  const int32_t type = TypeOf(c.type);
  const Json json = Json::parse(c.json);
  const size_t before = Handles();
  {
    Value direct, text;
    // Read from a copy gone before the value is used: the value owns its parts.
    const bool took = ReadTypedJsonDirect(Json(json), type, direct.out());
    EXPECT_EQ(took, c.direct);
    tsb_status* status = tsb_json_read(json.dump().c_str(), type, text.out());
    if (status != nullptr) {
      Status owned(status);
      EXPECT_FALSE(took) << "the direct route read what the text refuses: " << owned.message();
      try {  // ReadTypedJson gives the text's error, word for word
        Value failed;
        ReadTypedJson(json, type, failed.out());
        ADD_FAILURE() << "ReadTypedJson read it";
      } catch (const kit::ConvertError& e) {
        EXPECT_EQ(e.Message(), owned.message());
      }
    } else {
      if (took) {
        EXPECT_EQ(direct.type_index(), text.type_index());
        EXPECT_EQ(TextOf(direct.get()), TextOf(text.get()));
      }
      Value either;
      ReadTypedJson(json, type, either.out());
      EXPECT_EQ(TextOf(either.get()), TextOf(text.get()));
    }
  }
  EXPECT_EQ(Handles(), before);
}

TEST(TypedJsonRead, CommonKindsDirectlyAsTheTextReads) {
  for (const ReadCase& c : {
           ReadCase{"Dict[str, Tensor]",
                    R"({"a": {"dtype": "float32", "shape": [2, 2], "data": [1.5, 2, -0.1, 3e-5]},
                        "b": {"dtype": "int64", "shape": [], "data": [7]},
                        "c": {"dtype": "uint8", "shape": [0], "data": []},
                        "d": {"dtype": "bool", "shape": [2], "data": [true, false]}})",
                    true},
           {"List[int]", "[1, -2, 9223372036854775807]", true},
           {"List[float]", "[1, 2.5, -1e300]", true},
           {"float", "3", true},
           {"str", R"("a\u0000b")", true},
           {"Tuple[int, str, bool]", R"([1, "x\u00e9", true])", true},
           {"Optional[List[Tensor]]", "null", true},
           {"Optional[List[Tensor]]", R"([{"dtype": "float64", "shape": [1], "data": [0.25]}])", true},
           {"Dict[str, List[Optional[int]]]", R"({"z": [1, null], "a": []})", true},
           {"Tuple[Tensor, Tuple[int, float]]",
            R"([{"dtype": "int8", "shape": [2], "data": [-128, 127]}, [1, 2]])", true},
       }) {
    Reported([&] { CheckRead(c); });
  }
}

TEST(TypedJsonRead, OtherKindsAndOddValuesLeftToTheText) {
  for (const ReadCase& c : {
           ReadCase{"float", R"("NaN")", false},
           {"List[float]", R"([1.0, "-Infinity"])", false},
           {"int", "18446744073709551615", false},
           {"Tensor", R"({"dtype": "float32", "shape": [2], "data": [1, 2], "requires_grad": true})", false},
           {"Tensor", R"({"dtype": "float32", "shape": [1, 2], "data": [[1, 2]]})", false},
           {"Tensor", R"({"dtype": "complex64", "shape": [1], "data": [1]})", false},
           {"Tensor", R"({"dtype": "float16", "shape": [1], "data": [1]})", false},
           {"Dict[int, str]", R"([[1, "a"], [2, "b"]])", false},
           {"Any", "1", false},
           {"Union[int, str]", "1", false},
           {"ScalarType", R"("float32")", false},
       }) {
    Reported([&] { CheckRead(c); });
  }
}

TEST(TypedJsonRead, WrongValuesGetTheTextsErrorAndLeakNothing) {
  for (const ReadCase& c : {
           ReadCase{"List[int]", R"([1, "x"])", false},
           {"Dict[str, Tensor]",
            R"({"a": {"dtype": "float32", "shape": [1], "data": [1]},
                "b": {"dtype": "float32", "shape": [3], "data": [1]}})",
            false},
           {"Dict[str, Tensor]",
            R"({"a": {"dtype": "float32", "shape": [1], "data": [1]}, "b": 5})", false},
           {"Tuple[int, int]", "[1]", false},
           {"Tensor", R"({"dtype": "int8", "shape": [1], "data": [300]})", false},
           {"bool", "1", false},
           {"int", "1.5", false},
           {"Optional[int]", R"("x")", false},
       }) {
    Reported([&] { CheckRead(c); });
  }
}

struct WriteCase {
  const char* type;
  const char* json;  // read by tsb_json_read into the value written
  bool direct;
};

void CheckWrite(const WriteCase& c) {
  SCOPED_TRACE(std::string(c.type) + " <- " + c.json);
  const size_t before = Handles();
  {
    Value value;
    kit::CheckStatus(tsb_json_read(c.json, TypeOf(c.type), value.out()));
    std::string direct;
    const bool took = WriteTypedJsonDirect(value.get(), direct);
    EXPECT_EQ(took, c.direct);
    const std::string text = TextOf(value.get());
    // Parsed and written again by nlohmann: the same numbers (2.0 stays a
    // double), strings and key order.
    if (took) EXPECT_EQ(Json::parse(direct).dump(), Json::parse(text).dump());
    EXPECT_EQ(Json::parse(WriteTypedJson(value.get())).dump(), Json::parse(text).dump());
  }
  EXPECT_EQ(Handles(), before);
}

TEST(TypedJsonWrite, CommonKindsDirectlyAsTheTextWrites) {
  for (const WriteCase& c : {
           WriteCase{"Dict[str, Tensor]",
                     R"({"z": {"dtype": "float32", "shape": [3], "data": [0.1, 2, -1e-7]},
                         "a": {"dtype": "int64", "shape": [2, 1], "data": [-9, 9]},
                         "m": {"dtype": "uint8", "shape": [1], "data": [255]}})",
                     true},
           {"List[float]", "[0.1, 1e300, 2.0, -0.0, 5e-324, 123456789012345678]", true},
           {"Dict[str, str]", R"({"q\"b\\": "tab\tnl\n\u0001", "": ""})", true},
           {"Tensor", R"({"dtype": "float64", "shape": [2, 0], "data": []})", true},
           {"List[int]", "[1, -2]", true},
           {"List[bool]", "[true, false]", true},
           {"Tuple[int, Optional[str], List[str]]", R"([1, null, ["a", "b"]])", true},
           {"Dict[str, Dict[str, float]]", R"({"b": {"y": 1.5}, "a": {}})", true},
       }) {
    Reported([&] { CheckWrite(c); });
  }
}

TEST(TypedJsonWrite, OtherKindsAndOddValuesLeftToTheText) {
  for (const WriteCase& c : {
           WriteCase{"float", R"("NaN")", false},
           {"Tensor", R"({"dtype": "float32", "shape": [2], "data": [1, "Infinity"]})", false},
           {"Tensor", R"({"dtype": "bool", "shape": [1], "data": [true]})", false},
           {"Tensor", R"({"dtype": "float32", "shape": [1], "data": [1], "requires_grad": true})", false},
           {"Dict[int, str]", R"([[1, "a"]])", false},
           {"str", R"("\u00e9")", false},
           {"complex", R"({"real": 1.0, "imag": 2.0})", false},
           {"ScalarType", R"("float32")", false},
       }) {
    Reported([&] { CheckWrite(c); });
  }
}

}  // namespace
}  // namespace tsb::serve
