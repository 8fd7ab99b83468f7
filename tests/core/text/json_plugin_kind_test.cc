// JSON is a host of the codecs: a plugin's kinds, written with no JSON code
// (fixtures/rows_plugin.cc serves Tuple and Optional by rules of its own),
// read from and print to JSON, with the plugin's rules and messages. This
// binary loads that plugin instead of the bundled tuple and optional ones.
#include <string>

#include "tests/testing/build_paths.h"
#include "tests/core/text/text_testing.h"

namespace tsb::testing {
namespace {

class JsonPluginKindTest : public AbiTest {
 protected:
  void SetUp() override {
    int32_t count = 0;
    Status s(tsb_plugin_load(BuildPath("TSB_ROWS_PLUGIN"), &count));
    ASSERT_EQ(s.get(), nullptr) << tsb_status_get_message(s.get());
    AbiTest::SetUp();
  }

  static void ExpectReadError(const char* json, const char* annotation, const char* path,
                              const char* detail) {
    tsb_any out{};
    ExpectStatus(tsb_json_read(json, TypeOf(annotation), &out), TSB_ERR_TYPE, path, detail);
  }
};

TEST_F(JsonPluginKindTest, ThePluginsTupleReadsAndPrints) {
  Value row(FromJson(R"([1, "a", [2.5]])", "Tuple[int, str, List[float]]"));
  EXPECT_EQ(row.get().type_index, TypeOf("Tuple[int, str, List[float]]"));
  EXPECT_EQ(ToJson(row.get()), R"([1,"a",[2.5]])");
  // The row's own rule: missing cells at the end are None.
  Value short_row(FromJson("[1]", "Tuple[int, Optional[str]]"));
  EXPECT_EQ(ToJson(short_row.get()), "[1,null]");
  Value nested(FromJson("[[1, [2, 3]], null]", "List[Optional[Tuple[int, List[int]]]]"));
  EXPECT_EQ(ToJson(nested.get()), "[[1,[2,3]],null]");
}

TEST_F(JsonPluginKindTest, ThePluginsMessagesAndPaths) {
  ExpectReadError("[1, 2, 3]", "Tuple[int, int]", "",
                  "a row of 2 cells, got JSON array of 3 elements");
  ExpectReadError(R"([1, "x"])", "Tuple[int, int]", "cell 1",
                  "expected int, got JSON string \"x\"");
  ExpectReadError(R"({"a": 1})", "Tuple[int]", "",
                  "expected Tuple[int], got JSON object with 1 key");
  ExpectReadError(R"([[1, "x"]])", "List[Tuple[int, int]]", "[0] → cell 1",
                  "expected int, got JSON string \"x\"");
}

TEST_F(JsonPluginKindTest, ThePluginsOptionalKeepsItsOwnRule) {
  Value none(FromJson("null", "Optional[int]"));
  EXPECT_EQ(none.get().type_index, TSB_TYPE_NONE);
  Value two(FromJson("2", "Optional[float]"));
  EXPECT_EQ(two.get().type_index, TSB_TYPE_FLOAT);
  EXPECT_EQ(ToJson(two.get()), "2.0");
  // No "expected Optional[int]" restatement: that is plugins/optional's rule,
  // and JSON has no copy of it.
  ExpectReadError(R"("x")", "Optional[int]", "", "expected int, got JSON string \"x\"");
}

}  // namespace
}  // namespace tsb::testing
