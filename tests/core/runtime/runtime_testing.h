// Helpers for the runtime suites: the fixture modules, tensors at the
// boundary, and calls with keyword arguments written inline.
#ifndef TSBRIDGE_TESTS_RUNTIME_RUNTIME_TESTING_H_
#define TSBRIDGE_TESTS_RUNTIME_RUNTIME_TESTING_H_

#include <string>
#include <utility>
#include <vector>

#include <ATen/ATen.h>

#include "tests/testing/abi_test.h"
#include "tests/testing/build_paths.h"
#include "tsbridge/tsbridge.h"
#include "tsbridge/host/tsbridge.hpp"

namespace tsb::testing {

// A fixture module scripted by tests/core/runtime/make_fixtures.py.
inline std::string Fixture(const char* name) {
  return std::string(BuildPath("TSB_RUNTIME_FIXTURES")) + "/" + name;
}

// Borrowed arguments: positional values and keyword (name, value) pairs.
struct Kw {
  const char* name;
  tsb_any value;
};

// Owns a module; frees it at scope exit.
struct Module {
  tsb_module* m = nullptr;
  ~Module() { tsb_module_free(m); }
  tsb_module** out() { return &m; }
};

inline tsb_status* CallModule(tsb_module* m, const char* method,
                              const std::vector<tsb_any>& args,
                              const std::vector<Kw>& kw, tsb_any* out) {
  std::vector<const char*> names;
  std::vector<tsb_any> values;
  for (const Kw& k : kw) {
    names.push_back(k.name);
    values.push_back(k.value);
  }
  return tsb_module_call(m, method, ::tsb::CallArgs(args.data(), args.size(), names.data(), values.data(), kw.size()).get(), out);
}

inline tsb_status* CallOp(const char* op, const std::vector<tsb_any>& args,
                          const std::vector<Kw>& kw, tsb_any* out) {
  std::vector<const char*> names;
  std::vector<tsb_any> values;
  for (const Kw& k : kw) {
    names.push_back(k.name);
    values.push_back(k.value);
  }
  return tsb_op_call(op, ::tsb::CallArgs(args.data(), args.size(), names.data(), values.data(), kw.size()).get(), out);
}

// The tensor a boundary value holds (the test fails on another kind).
inline at::Tensor TensorOf(const tsb_any& v) {
  c10::IValue value = FromBoundary(v);
  EXPECT_TRUE(value.isTensor()) << value.tagKind();
  return value.isTensor() ? value.toTensor() : at::Tensor();
}

inline std::string MessageOf(const Status& s) { return tsb_status_get_message(s.get()); }

}  // namespace tsb::testing

#endif  // TSBRIDGE_TESTS_RUNTIME_RUNTIME_TESTING_H_
