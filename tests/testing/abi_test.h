// Shared helpers for the GoogleTest suites: status checks, a base fixture
// that checks no handle leaks, and a host-style rebuild of values that uses
// the C ABI only. The RAII types are tsbridge.hpp's: the suites live in
// tsb::testing, so Value and Status name tsb::Value and tsb::Status.
#ifndef TSBRIDGE_TESTS_TESTING_ABI_TEST_H_
#define TSBRIDGE_TESTS_TESTING_ABI_TEST_H_

#include <string>

#include <ATen/core/ivalue.h>
#include <gtest/gtest.h>

#include "tsbridge/tsbridge.h"
#include "tsbridge/host/tsbridge.hpp"

namespace tsb::testing {

#define TSB_ASSERT_OK(expr)                                             \
  do {                                                                  \
    ::tsb::Status tsb_s_(expr);                                         \
    ASSERT_EQ(tsb_s_.get(), nullptr) << tsb_status_get_message(tsb_s_.get()); \
  } while (0)

#define TSB_EXPECT_OK(expr)                                             \
  do {                                                                  \
    ::tsb::Status tsb_s_(expr);                                         \
    EXPECT_EQ(tsb_s_.get(), nullptr) << tsb_status_get_message(tsb_s_.get()); \
  } while (0)

// Every test ends with no live handle.
class AbiTest : public ::testing::Test {
 protected:
  void SetUp() override { live_at_start_ = ::tsb::LiveHandles(); }
  void TearDown() override {
    EXPECT_EQ(::tsb::LiveHandles(), live_at_start_) << "a handle leaked";
  }

 private:
  int64_t live_at_start_ = 0;
};

// Expects a failure with exactly this code, path and detail (so the message
// is "path: detail", or the detail alone); takes ownership of the status.
inline void ExpectStatus(tsb_status* raw, tsb_code code, const std::string& path,
                         const std::string& detail) {
  Status s(raw);
  ASSERT_NE(s.get(), nullptr) << "expected: " << detail;
  EXPECT_EQ(tsb_status_get_code(s.get()), code) << tsb_status_get_message(s.get());
  EXPECT_EQ(tsb_status_get_path(s.get()), path);
  EXPECT_EQ(tsb_status_get_detail(s.get()), detail);
  EXPECT_EQ(tsb_status_get_message(s.get()), path.empty() ? detail : path + ": " + detail);
}

// What the registry says of a type index (the test fails where it cannot).
inline tsb_type_info InfoOf(int32_t type_index) {
  tsb_type_info info{};
  info.struct_size = sizeof(info);
  Status s(tsb_type_get_info(type_index, &info));
  EXPECT_EQ(s.get(), nullptr) << tsb_status_get_message(s.get());
  return info;
}

// Expects a failure with this code and whole message; takes the status.
inline void ExpectMessage(tsb_status* raw, tsb_code code, const std::string& message) {
  Status s(raw);
  ASSERT_NE(s.get(), nullptr) << "expected: " << message;
  EXPECT_EQ(tsb_status_get_code(s.get()), code) << tsb_status_get_message(s.get());
  EXPECT_EQ(tsb_status_get_message(s.get()), message);
}

// Where a tsb_* call writes a module, for a tsb::Module to own once the call
// returns: TSB_ASSERT_OK(tsb_module_load(path, Out(m))). tsb::Value has
// out() for values; tsb::Module is made from a pointer, so this fills one.
class ModuleOut {
 public:
  explicit ModuleOut(Module& owner) : owner_(owner) {}
  ModuleOut(const ModuleOut&) = delete;
  ModuleOut& operator=(const ModuleOut&) = delete;
  ~ModuleOut() {
    if (raw_ != nullptr) owner_ = Module(raw_);
  }
  operator tsb_module**() { return &raw_; }

 private:
  Module& owner_;
  tsb_module* raw_ = nullptr;
};
inline ModuleOut Out(Module& owner) { return ModuleOut(owner); }

// Loads the bundled plugins (tuple, optional, sparse) next to the library;
// loading again is a no-op.
inline void LoadBundledPlugins() {
  Status s(tsb_plugin_load_bundled());
  ASSERT_EQ(s.get(), nullptr) << tsb_status_get_message(s.get());
}

// The fixture of the suites that need Tuple, Optional or the sparse records:
// the bundled plugins, then AbiTest's leak check.
class BundledPluginsTest : public AbiTest {
 protected:
  void SetUp() override {
    LoadBundledPlugins();
    AbiTest::SetUp();
  }
};

// The type index of an annotation; fails the test if it does not parse.
int32_t TypeOf(const char* annotation);

// IValue -> boundary with the given static type (nullptr: its own type).
tsb_any Boundary(const c10::IValue& value, const char* annotation = nullptr);
c10::IValue FromBoundary(const tsb_any& value);

// Rebuilds `value` as a host would, through the C ABI only: reads it with
// the accessors, builds a fresh value bottom-up with the builders (lists of
// Any, then tsb_any_coerce to the original type). A new reference.
tsb_any HostRebuild(const tsb_any& value);

// Deep equality of two IValues, including container types, order, and
// (for tensors) shared storage.
::testing::AssertionResult SameValue(const c10::IValue& a, const c10::IValue& b);

// A list's or a tuple's items from one tsb_list_get_items call are the
// same, one by one, as tsb_list_get's (inline payloads equal, handles of the
// same type holding the same value); also checks tsb_any_len.
void ExpectItemsAsListGet(const tsb_any& container, size_t n);

}  // namespace tsb::testing

#endif  // TSBRIDGE_TESTS_TESTING_ABI_TEST_H_
