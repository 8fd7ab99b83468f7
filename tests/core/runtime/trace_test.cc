// Tracing a host function: the C callback calls aten::mul and aten::add
// through tsb_op_call; the traced module is saved, then reloaded and run in
// a fresh process (PyTorch's own torch.jit.load) on other inputs.
#include <cstdio>
#include <memory>
#include <string>

#include <ATen/ATen.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/core/runtime/runtime_testing.h"
#include "tests/testing/build_paths.h"

namespace tsb::testing {
namespace {

using ::testing::HasSubstr;

// y = x * w + x, as a host would write it: only the C ABI.
extern "C" tsb_status* MulAdd(void* user_data, const tsb_any* inputs, size_t n,
                              tsb_any* output) {
  ++*static_cast<int*>(user_data);
  if (n != 2) return tsb_status_new(TSB_ERR_INVALID_ARGUMENT, "expected 2 inputs");
  tsb_any product;
  tsb_status* s = tsb_op_call("aten::mul", ::tsb::CallArgs(inputs, 2).get(), &product);
  if (s != nullptr) return s;
  tsb_any sum_args[2] = {product, inputs[0]};
  s = tsb_op_call("aten::add", ::tsb::CallArgs(sum_args, 2).get(), output);
  tsb_any_release(&product);
  return s;
}

// (sum, diff) as a NamedTuple no one registered, as the R host returns
// tsb_tuple(sum = ..., diff = ...) and Python a namedtuple.
extern "C" tsb_status* SumDiff(void*, const tsb_any* inputs, size_t, tsb_any* output) {
  tsb_any parts[2];
  tsb_status* s = tsb_op_call("aten::add", ::tsb::CallArgs(inputs, 2).get(), &parts[0]);
  if (s != nullptr) return s;
  s = tsb_op_call("aten::sub", ::tsb::CallArgs(inputs, 2).get(), &parts[1]);
  if (s == nullptr) {
    const char* fields[] = {"sum", "diff"};
    s = tsb_tuple_new_named(nullptr, fields, parts, 2, output);
    tsb_any_release(&parts[1]);
  }
  tsb_any_release(&parts[0]);
  return s;
}

extern "C" tsb_status* Fails(void*, const tsb_any*, size_t, tsb_any*) {
  return tsb_status_new(TSB_ERR_INVALID_ARGUMENT, "the host gave up");
}

// Runs a command, returning its standard output (the test fails on a
// non-zero exit).
std::string RunCommand(const std::string& command) {
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  EXPECT_NE(pipe, nullptr);
  std::string text;
  char buffer[256];
  while (pipe && fgets(buffer, sizeof(buffer), pipe.get()) != nullptr) text += buffer;
  int rc = pclose(pipe.release());
  EXPECT_EQ(rc, 0) << command << "\n" << text;
  return text;
}

class TraceTest : public AbiTest {
 protected:
  void SetUp() override {
    AbiTest::SetUp();
    LoadBundledPlugins();
  }
};

TEST_F(TraceTest, TracedOperatorsReplayInAFreshProcess) {
  Value x(Boundary(at::tensor({1.0, 2.0, 3.0})));
  Value w(Boundary(at::tensor({2.0, 2.0, 2.0})));
  tsb_any inputs[2] = {x.get(), w.get()};
  int calls = 0;
  Module traced{nullptr};
  TSB_ASSERT_OK(tsb_module_trace(&MulAdd, &calls, inputs, 2, Out(traced)));
  EXPECT_EQ(calls, 1);  // the host function runs once, while the tracer records

  const std::vector<tsb_schema_info> methods = traced.Methods();
  ASSERT_EQ(methods.size(), 1u);
  const tsb_schema_info& info = methods[0];
  EXPECT_STREQ(info.name, "forward");
  EXPECT_EQ(info.num_arguments, 2u);

  // In this process, on other inputs: the graph, not the example, computes.
  Value a(Boundary(at::tensor({1.0, 2.0})));
  Value b(Boundary(at::tensor({3.0, 4.0})));
  Value out;
  TSB_ASSERT_OK(CallModule(traced.get(), "forward", {a.get(), b.get()}, {}, out.out()));
  EXPECT_TRUE(at::allclose(TensorOf(out.get()), at::tensor({4.0, 10.0})));
  EXPECT_EQ(calls, 1);

  std::string path = ::testing::TempDir() + "traced_muladd.pt";
  TSB_ASSERT_OK(tsb_module_save(traced.get(), path.c_str()));
  std::string printed =
      RunCommand(std::string(BuildPath("TSB_PYTHON")) +
                 " -c \"import sys, torch; m = torch.jit.load(sys.argv[1]); "
                 "print(m(torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])).tolist()); "
                 "print(m.graph)\" " +
                 path);
  EXPECT_THAT(printed, ::testing::StartsWith("[4.0, 10.0]\n"));
  EXPECT_THAT(printed, HasSubstr("aten::mul"));
  EXPECT_THAT(printed, HasSubstr("aten::add"));
  std::remove(path.c_str());
}

TEST_F(TraceTest, HostFailureAbandonsTheTrace) {
  Value x(Boundary(at::tensor({1.0})));
  tsb_module* m = nullptr;
  Status s(tsb_module_trace(&Fails, nullptr, &x.get(), 1, &m));
  EXPECT_EQ(tsb_status_get_code(s.get()), TSB_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(MessageOf(s), "traced function(): the host gave up");
  EXPECT_EQ(m, nullptr);
  // The tracer state was abandoned: a new trace works on this thread.
  tsb_any inputs[2] = {x.get(), x.get()};
  int calls = 0;
  Module traced{nullptr};
  TSB_ASSERT_OK(tsb_module_trace(&MulAdd, &calls, inputs, 2, Out(traced)));
}

// A NamedTuple output traces in both modes as the tuple of its items, as
// torch.jit.trace records a namedtuple (hosts/python/tests/test_named_tuples.py
// and the R host's tests compare with it).
TEST_F(TraceTest, NamedTupleOutputTracesAsItsTuple) {
  Value a(Boundary(at::tensor({5.0, 5.0}))), b(Boundary(at::tensor({1.0, 2.0})));
  tsb_any inputs[2] = {a.get(), b.get()};
  for (bool strict : {true, false}) {
    tsb_trace_options options{};
    options.struct_size = sizeof options;
    options.strict = strict;
    Module traced{nullptr};
    TSB_ASSERT_OK(tsb_module_trace_with(&SumDiff, nullptr, inputs, 2, &options, Out(traced)));
    Value out;
    TSB_ASSERT_OK(CallModule(traced.get(), "forward", {b.get(), a.get()}, {}, out.out()));
    c10::IValue result = FromBoundary(out.get());
    ASSERT_TRUE(result.isTuple()) << strict;
    const auto& items = result.toTupleRef().elements();
    ASSERT_EQ(items.size(), 2u);
    EXPECT_TRUE(items[0].toTensor().equal(at::tensor({6.0, 7.0})));
    EXPECT_TRUE(items[1].toTensor().equal(at::tensor({-4.0, -3.0})));
  }
}

TEST_F(TraceTest, TheCallerNamesTheMethod) {
  Value x(Boundary(at::tensor({1.0})));
  tsb_any inputs[2] = {x.get(), x.get()};
  int calls = 0;
  tsb_trace_options options{};
  options.struct_size = sizeof options;
  options.strict = true;
  options.method_name = "mul_add";
  Module traced{nullptr};
  TSB_ASSERT_OK(tsb_module_trace_with(&MulAdd, &calls, inputs, 2, &options, Out(traced)));
  tsb_schema_info info{};
  info.struct_size = sizeof(info);
  TSB_ASSERT_OK(tsb_module_get_method(traced.get(), 0, &info));
  EXPECT_STREQ(info.name, "mul_add");
  Value out;
  TSB_ASSERT_OK(CallModule(traced.get(), "mul_add", {x.get(), x.get()}, {}, out.out()));

  options.method_name = "2x";
  tsb_module* bad = nullptr;
  Status s(tsb_module_trace_with(&MulAdd, &calls, inputs, 2, &options, &bad));
  EXPECT_EQ(tsb_status_get_code(s.get()), TSB_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(MessageOf(s),
            "expected a method name (letters, digits and _, not starting with a digit), "
            "got \"2x\"");
  EXPECT_EQ(bad, nullptr);
}

}  // namespace
}  // namespace tsb::testing
