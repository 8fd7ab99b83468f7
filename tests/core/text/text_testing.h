// Shared by the JSON and pickle suites: the bundled plugins are loaded once
// per process (Tuple, NamedTuple, Optional, Union come from them), and small
// wrappers over tsb_json_write / tsb_json_read that fail the test on error.
#ifndef TSBRIDGE_TESTS_TEXT_TEXT_TESTING_H_
#define TSBRIDGE_TESTS_TEXT_TEXT_TESTING_H_

#include <string>
#include <utility>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/testing/abi_test.h"
#include "tsbridge/tsbridge.h"

namespace tsb::testing {

// Compact text of a JSON document, in one canonical spelling, so texts from
// C++ and from Python compare as parsed JSON (numbers by value and kind:
// 1 and 1.0 differ, as int and float do).
inline std::string Canonical(const std::string& text) {
  return nlohmann::ordered_json::parse(text).dump();
}

inline std::string ToJson(const tsb_any& value) {
  char* text = nullptr;
  Status s(tsb_json_write(&value, &text));
  EXPECT_EQ(s.get(), nullptr) << tsb_status_get_message(s.get());
  std::string out = text == nullptr ? "<error>" : text;
  tsb_string_free(text);
  return out;
}

// A value read from JSON as `annotation`; the test fails on error.
inline tsb_any FromJson(const std::string& json, const char* annotation) {
  tsb_any out{};
  Status s(tsb_json_read(json.c_str(), TypeOf(annotation), &out));
  EXPECT_EQ(s.get(), nullptr) << annotation << " from " << json << ": "
                              << tsb_status_get_message(s.get());
  return out;
}

// The type index of what `json` reads as, as `annotation`.
inline int32_t ReadsAs(const std::string& json, const char* annotation) {
  Value v(FromJson(json, annotation));
  return v.get().type_index;
}

class JsonTest : public BundledPluginsTest {
 protected:
  // Reads `json` as `annotation`, prints it again, and expects `printed`
  // (the same JSON when omitted) as parsed JSON.
  static void ExpectRoundTrip(const std::string& json, const char* annotation,
                              const std::string& printed = "") {
    Value v(FromJson(json, annotation));
    EXPECT_EQ(Canonical(ToJson(v.get())), Canonical(printed.empty() ? json : printed))
        << "as " << annotation;
  }

  // tsb_json_read fails with exactly this code, path and detail, and leaves
  // `out` untouched.
  static void ExpectError(const std::string& json, const char* annotation,
                          const char* path, const std::string& detail,
                          tsb_code code = TSB_ERR_TYPE) {
    tsb_any out{};
    Status s(tsb_json_read(json.c_str(), TypeOf(annotation), &out));
    ASSERT_NE(s.get(), nullptr) << json << " as " << annotation << " should fail";
    EXPECT_EQ(tsb_status_get_code(s.get()), code) << tsb_status_get_message(s.get());
    EXPECT_STREQ(tsb_status_get_path(s.get()), path) << json << " as " << annotation;
    EXPECT_EQ(tsb_status_get_detail(s.get()), detail) << json << " as " << annotation;
    EXPECT_EQ(out.type_index, TSB_TYPE_INVALID) << "out must stay untouched";
  }
};

}  // namespace tsb::testing

#endif  // TSBRIDGE_TESTS_TEXT_TEXT_TESTING_H_
