// Helpers for the runtime suites (modules, operators, tracing, autograd,
// module state): the fixture modules and PyTorch's expected values, tensors
// at the boundary, and calls with keyword arguments written inline. A module
// is a tsb::Module (tests/testing/abi_test.h's Out fills one).
#ifndef TSBRIDGE_TESTS_RUNTIME_RUNTIME_TESTING_H_
#define TSBRIDGE_TESTS_RUNTIME_RUNTIME_TESTING_H_

#include <fstream>
#include <iterator>
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

// The autograd module and PyTorch's expected values, scripted by
// tests/core/runtime/make_autograd_fixtures.py.
inline std::string AutogradFixture(const char* name) {
  return std::string(BuildPath("TSB_AUTOGRAD_FIXTURES")) + "/" + name;
}

// Borrowed arguments: positional values and keyword (name, value) pairs.
struct Kw {
  const char* name;
  tsb_any value;
};

// Hands `call` the tsb_call_args of `args` and `kw` (valid during the call).
template <typename Call>
tsb_status* WithArgs(const std::vector<tsb_any>& args, const std::vector<Kw>& kw, Call call) {
  std::vector<const char*> names;
  std::vector<tsb_any> values;
  for (const Kw& k : kw) {
    names.push_back(k.name);
    values.push_back(k.value);
  }
  return call(
      ::tsb::CallArgs(args.data(), args.size(), names.data(), values.data(), kw.size()).get());
}

inline tsb_status* CallModule(tsb_module* m, const char* method,
                              const std::vector<tsb_any>& args,
                              const std::vector<Kw>& kw, tsb_any* out) {
  return WithArgs(args, kw, [&](const tsb_call_args* a) {
    return tsb_module_call(m, method, a, out);
  });
}

inline tsb_status* CallOp(const char* op, const std::vector<tsb_any>& args,
                          const std::vector<Kw>& kw, tsb_any* out) {
  return WithArgs(args, kw, [&](const tsb_call_args* a) { return tsb_op_call(op, a, out); });
}

// Positional arguments only.
inline tsb_status* Call(tsb_module* m, const char* method, const std::vector<tsb_any>& args,
                        tsb_any* out) {
  return CallModule(m, method, args, {}, out);
}
inline tsb_status* Op(const char* name, const std::vector<tsb_any>& args, tsb_any* out) {
  return CallOp(name, args, {}, out);
}

// The tensor a boundary value holds (the test fails on another kind).
inline at::Tensor TensorOf(const tsb_any& v) {
  c10::IValue value = FromBoundary(v);
  EXPECT_TRUE(value.isTensor()) << value.tagKind();
  return value.isTensor() ? value.toTensor() : at::Tensor();
}

// A boundary handle on `t` (a new reference).
inline tsb_any Handle(const at::Tensor& t) { return Boundary(c10::IValue(t)); }

// PyTorch's expected tensors (expected.pt, written by torch.save).
inline c10::Dict<std::string, at::Tensor> Expected() {
  std::ifstream in(AutogradFixture("expected.pt"), std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Value dict;
  Status s(tsb_pickle_read(bytes.data(), bytes.size(), dict.out()));
  EXPECT_EQ(s.get(), nullptr) << tsb_status_get_message(s.get());
  c10::Dict<std::string, at::Tensor> out;
  for (const auto& item : FromBoundary(dict.get()).toGenericDict()) {
    out.insert(item.key().toStringRef(), item.value().toTensor());
  }
  return out;
}

inline std::string MessageOf(const Status& s) { return tsb_status_get_message(s.get()); }

}  // namespace tsb::testing

#endif  // TSBRIDGE_TESTS_RUNTIME_RUNTIME_TESTING_H_
