// tsb serve's request parse (hosts/serve/request_json.h) held to nlohmann's:
// the same document, integers where integers and floats where floats, or
// the same error, for what simdjson reads and for what it leaves to
// nlohmann. The fuzz target (tests/fuzz/serve_request_fuzzer.cc) checks the
// same on every input it makes.
#include "hosts/serve/request_json.h"

#include <gtest/gtest.h>

#include <string>

namespace tsb::serve {
namespace {

// Same kinds all through: numbers compared as integer or float, then the
// text and the values.
void ExpectSameKinds(const Json& ours, const Json& theirs, const std::string& where) {
  ASSERT_EQ(ours.is_number_float(), theirs.is_number_float()) << where;
  ASSERT_EQ(ours.is_number_integer(), theirs.is_number_integer()) << where;
  ASSERT_EQ(ours.type_name(), std::string(theirs.type_name())) << where;
  if (ours.is_structured()) {
    ASSERT_EQ(ours.size(), theirs.size()) << where;
    auto a = ours.begin();
    auto b = theirs.begin();
    for (size_t i = 0; a != ours.end(); ++a, ++b, ++i) {
      if (ours.is_object()) {
        ASSERT_EQ(a.key(), b.key()) << where;
      }
      ExpectSameKinds(*a, *b, where + "/" + std::to_string(i));
    }
  }
}

void ExpectSame(const std::string& text) {
  SCOPED_TRACE(text.size() > 80 ? text.substr(0, 80) + "..." : text);
  std::string ours_error = "(none)", theirs_error = "(none)";
  Json ours, theirs;
  try {
    ours = ParseRequestJson(text);
  } catch (const Json::exception& e) {
    ours_error = e.what();
  }
  try {
    theirs = Json::parse(text);
  } catch (const Json::exception& e) {
    theirs_error = e.what();
  }
  EXPECT_EQ(ours_error, theirs_error);
  EXPECT_EQ(ours.dump(), theirs.dump());
  EXPECT_EQ(ours, theirs);
  ExpectSameKinds(ours, theirs, "");
}

TEST(RequestJson, ParsesWithSimdjsonWhereBuilt) {
#ifdef TSB_SERVE_SIMDJSON_EXPECTED
  EXPECT_TRUE(RequestJsonUsesSimdjson());
#else
  GTEST_SKIP() << "built without simdjson: nlohmann parses every request";
#endif
}

TEST(RequestJson, RequestsAsNlohmannReadsThem) {
  ExpectSame(R"({"inputs": [{"name": "x", "datatype": "FP32", "shape": [1, 4],
                 "data": [0.5, -1.25, 2.0, 3.5]}], "id": "r1",
                 "parameters": {"binary_data_output": true}})");
  ExpectSame(R"({"inputs": [{"name": "d", "parameters": {"tsbridge_json":
                 {"k0": {"dtype": "float32", "shape": [2], "data": [0.0, 0.25]},
                  "k1": {"dtype": "int64", "shape": [], "data": [7]}}}}]})");
  ExpectSame("  \t\n[] ");
  ExpectSame("{}");
  ExpectSame("null");
  ExpectSame("true");
  ExpectSame("\"\"");
}

TEST(RequestJson, NumbersKeepTheirKind) {
  ExpectSame("[0, 1, -1, -0, 0.0, -0.0, 1.0, 1e2, 1E-2, 2.5e+3, 0.1, 123456789.125]");
  ExpectSame("[9223372036854775807, 9223372036854775808, -9223372036854775808]");
  ExpectSame("[18446744073709551615, 1.7976931348623157e308, 5e-324, 2.2250738585072014e-308]");
  // Past 64 bits: nlohmann reads a float, simdjson 3 refuses (nlohmann decides).
  ExpectSame("[18446744073709551616, -9223372036854775809, 123456789012345678901234567890]");
}

TEST(RequestJson, StringsAndKeys) {
  ExpectSame(R"(["\u00e9", "\ud83d\ude00", "a\u0000b", "\"\\\/\b\f\n\r\t", "é😀"])");
  ExpectSame(R"({"a": 1, "b": 2, "a": 3})");  // the last value, at the first one's place
  ExpectSame(R"({"z": 1, "a": 2, "m": {"y": [], "b": {}}})");
}

TEST(RequestJson, NestingAtAndPastSimdjsonsDepth) {
  for (const size_t depth : {100, 1023, 1024, 1025, 3000}) {
    ExpectSame(std::string(depth, '[') + std::string(depth, ']'));
  }
}

// Texts past the thread's parser (64 KiB), past simdjson's share (1 MiB).
TEST(RequestJson, LargeTexts) {
  for (const int n : {20000, 300000}) {
    std::string big = "{\"data\": [";
    for (int i = 0; i < n; ++i) big += (i ? ",0.25" : "0.25");
    ExpectSame(big + "], \"id\": \"r\"}");
    ExpectSame(big + "], \"id\": }");  // and what is not JSON, at its end
  }
}

TEST(RequestJson, WhatIsNotJsonFailsWithNlohmannsError) {
  for (const char* text :
       {"", "{", "[1,]", "{\"a\" 1}", "{\"a\":}", "[1] x", "01", "-", "[-]", "1.", ".5", "1e",
        "+1", "nan", "NaN", "Infinity", "[1e400]", "[-1e400]", "tru", "nul", "'a'", "{a: 1}",
        "[\"\\q\"]", "[\"\\u12\"]", "[\"\\ud800\"]", "[\"\\udc00\"]", "[\"\\ud800\\u0041\"]",
        "[\"a\nb\"]", "[\"a\x01\"]", "[\"\xff\"]", "[\"\xc3\"]", "[\"\xed\xa0\x80\"]",
        "[\"\xf4\x90\x80\x80\"]", "\xef\xbb\xbf{}", "{}\xef\xbb\xbf", "/* c */ {}"}) {
    ExpectSame(text);
  }
  ExpectSame(std::string("[1]\0", 4));
}

}  // namespace
}  // namespace tsb::serve
