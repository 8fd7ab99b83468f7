// Helpers for the autograd and module-state suites: the fixture module and
// PyTorch's expected values (tests/core/runtime/make_autograd_fixtures.py), calls
// through the ABI, tensors out of boundary values.
#ifndef TSBRIDGE_TESTS_AUTOGRAD_AUTOGRAD_TESTING_H_
#define TSBRIDGE_TESTS_AUTOGRAD_AUTOGRAD_TESTING_H_

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <ATen/ATen.h>

#include "tests/testing/abi_test.h"
#include "tests/testing/build_paths.h"
#include "tsbridge/tsbridge.h"

namespace tsb::testing {

inline std::string AutogradFixture(const char* name) {
  return std::string(BuildPath("TSB_AUTOGRAD_FIXTURES")) + "/" + name;
}

// Owns a module; frees it at scope exit.
struct OwnedModule {
  tsb_module* m = nullptr;
  OwnedModule() = default;
  OwnedModule(const OwnedModule&) = delete;
  OwnedModule& operator=(const OwnedModule&) = delete;
  ~OwnedModule() { tsb_module_free(m); }
  tsb_module** out() { return &m; }
};

// The tensor a boundary value holds (an undefined one for another kind,
// with a test failure).
inline at::Tensor TensorIn(const tsb_any& v) {
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

inline tsb_status* Call(tsb_module* m, const char* method, std::vector<tsb_any> args,
                        tsb_any* out) {
  tsb_call_args a = tsb_call_args_make(args.data(), args.size());
  return tsb_module_call(m, method, &a, out);
}

inline tsb_status* Op(const char* name, std::vector<tsb_any> args, tsb_any* out) {
  tsb_call_args a = tsb_call_args_make(args.data(), args.size());
  return tsb_op_call(name, &a, out);
}

}  // namespace tsb::testing

#endif  // TSBRIDGE_TESTS_AUTOGRAD_AUTOGRAD_TESTING_H_
