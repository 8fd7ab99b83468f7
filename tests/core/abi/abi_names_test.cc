// Reads tsbridge.h as text and holds it to docs/abi.md: every exported
// function is tsb_<noun>_<verb>[_<object>], and every struct the library
// fills (or a host passes and the ABI may grow) starts with struct_size.
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/testing/build_paths.h"

using tsb::testing::BuildPath;

namespace {

std::string Header() {
  std::ifstream in(BuildPath("TSB_HEADER_PATH"));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// docs/abi.md's lists; a minor release may add to them.
const std::vector<std::string> kNouns = {
    "memory_format", "status", "type", "any", "handle", "bool", "int", "float", "complex",
    "str", "device", "dtype", "layout", "enum", "list", "tuple", "dict", "tensor",
    "plugin", "function", "object", "json", "pickle", "module", "op", "string",
    "version", "library", "autograd", "grad_mode", "call_args", "schema"};
const std::set<std::string> kVerbs = {
    "new", "free", "get", "set", "make", "parse", "load", "save", "compile", "trace",
    "call", "read", "write", "retain", "release", "coerce", "repr", "len", "count",
    "copy", "to", "from", "zero", "detach", "backward", "enable", "find", "defer",
    "flatten", "unflatten", "keep"};

// "" when `name` follows the scheme, else why not.
std::string Check(const std::string& name) {
  if (name == "tsb_version") return "";  // the one fixed exception (docs/abi.md)
  if (name.rfind("tsb_", 0) != 0) return "does not start with tsb_";
  std::string rest = name.substr(4);
  for (const std::string& noun : kNouns) {
    if (rest.rfind(noun + "_", 0) != 0) continue;
    std::string tail = rest.substr(noun.size() + 1);
    std::string verb = tail.substr(0, tail.find('_'));
    if (kVerbs.count(verb)) return "";
    return "verb '" + verb + "' is not in docs/abi.md's list";
  }
  return "noun is not in docs/abi.md's list";
}

TEST(AbiNames, EveryExportedFunctionFollowsTheScheme) {
  std::string header = Header();
  ASSERT_FALSE(header.empty()) << "cannot read " << BuildPath("TSB_HEADER_PATH");
  std::regex exported(R"(TSB_API\s+[\w\s\*]*?\b(tsb_\w+)\s*\()");
  int seen = 0;
  for (std::sregex_iterator it(header.begin(), header.end(), exported), end; it != end;
       ++it) {
    ++seen;
    std::string name = (*it)[1];
    EXPECT_EQ(Check(name), "") << name;
  }
  EXPECT_GT(seen, 60) << "the pattern no longer finds the exported functions";
}

TEST(AbiNames, InlineHelpersFollowTheScheme) {
  std::string header = Header();
  std::regex helper(R"(static inline [\w\s\*]*?\b(tsb_\w+)\s*\()");
  int seen = 0;
  for (std::sregex_iterator it(header.begin(), header.end(), helper), end; it != end; ++it) {
    ++seen;
    std::string name = (*it)[1];
    // Inline value makers read as the value they make: tsb_any_int(5).
    bool any_maker = name.rfind("tsb_any_", 0) == 0;
    EXPECT_TRUE(any_maker || Check(name).empty()) << name << ": " << Check(name);
  }
  EXPECT_GT(seen, 8);
}

TEST(AbiNames, TheCheckerRejectsTheOldNames) {
  for (const char* old : {"tsb_get_int", "tsb_len", "tsb_repr", "tsb_live_handles",
                          "tsb_module_method", "tsb_dict_item", "tsb_type_kind"}) {
    EXPECT_NE(Check(old), "") << old;
  }
}

TEST(AbiNames, EveryGrowableStructStartsWithItsSize) {
  std::string header = Header();
  std::regex strukt(R"(typedef struct (tsb_\w+) \{\s*([^;]*);)");
  std::set<std::string> sized;
  for (std::sregex_iterator it(header.begin(), header.end(), strukt), end; it != end; ++it) {
    std::string name = (*it)[1], first = (*it)[2];
    if (name == "tsb_any") continue;  // the 16-byte value: fixed layout, never grows
    EXPECT_NE(first.find("size_t struct_size"), std::string::npos)
        << name << " starts with '" << first << "'";
    sized.insert(name);
  }
  for (const char* must : {"tsb_type_info", "tsb_plugin_info", "tsb_schema_info",
                           "tsb_argument_info", "tsb_call_args"}) {
    EXPECT_TRUE(sized.count(must)) << must;
  }
}

TEST(AbiNames, MajorVersionIsOne) {
  std::string header = Header();
  EXPECT_NE(header.find("#define TSB_VERSION_MAJOR 1\n"), std::string::npos);
}

}  // namespace
