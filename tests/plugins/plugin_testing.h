// Shared by the plugin suites: every test process loads the real plugin
// files (paths from CMake) through the C ABI, as a host would.
#ifndef TSBRIDGE_TESTS_PLUGINS_PLUGIN_TESTING_H_
#define TSBRIDGE_TESTS_PLUGINS_PLUGIN_TESTING_H_

#include <string>
#include <vector>

#include <ATen/core/ivalue.h>
#include <gtest/gtest.h>

#include "tests/testing/abi_test.h"
#include "tsbridge/tsbridge.h"

namespace tsb::testing {

class PluginTest : public BundledPluginsTest {
 protected:
  static std::vector<int32_t> ContainedOf(int32_t type_index) {
    tsb_type_info info = InfoOf(type_index);
    return std::vector<int32_t>(info.contained, info.contained + info.num_contained);
  }

  static std::vector<std::string> FieldsOf(int32_t type_index) {
    tsb_type_info info = InfoOf(type_index);
    if (info.field_names == nullptr) return {};
    return std::vector<std::string>(info.field_names, info.field_names + info.num_contained);
  }

  // Coerces and expects a failure with exactly this code, path and detail;
  // `out` must stay untouched.
  static void ExpectCoerceError(const tsb_any& value, int32_t type, const char* path,
                                const char* detail, tsb_code code = TSB_ERR_TYPE) {
    Value out;
    Status s(tsb_any_coerce(&value, type, out.out()));
    ASSERT_NE(s.get(), nullptr) << "coercing to type " << type << " should fail";
    EXPECT_EQ(tsb_status_get_code(s.get()), code) << tsb_status_get_message(s.get());
    EXPECT_STREQ(tsb_status_get_path(s.get()), path);
    EXPECT_STREQ(tsb_status_get_detail(s.get()), detail);
    EXPECT_EQ(out.get().type_index, TSB_TYPE_INVALID) << "out must stay untouched";
  }

  // A List[Any] of borrowed items, as a host builds one untyped.
  static Value AnyList(std::vector<tsb_any> items) {
    Value list;
    Status s(tsb_list_new(TSB_TYPE_ANY, items.data(), items.size(), list.out()));
    EXPECT_EQ(s.get(), nullptr) << tsb_status_get_message(s.get());
    return list;
  }

  // A new str handle.
  static tsb_any Str(const char* s) {
    tsb_any out{};
    Status status(tsb_str_new(s, std::char_traits<char>::length(s), &out));
    EXPECT_EQ(status.get(), nullptr) << tsb_status_get_message(status.get());
    return out;
  }
};

inline c10::IValue MakeTuple(std::vector<c10::IValue> items) {
  return c10::ivalue::Tuple::create(std::move(items));
}

}  // namespace tsb::testing

#endif  // TSBRIDGE_TESTS_PLUGINS_PLUGIN_TESTING_H_
