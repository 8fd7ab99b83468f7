// Gradients through the host ABI equal PyTorch's on the same module and
// inputs (expected.pt, written by PyTorch in make_fixtures.py); the errors
// of misuse say what and where.
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "tests/core/runtime/runtime_testing.h"

namespace tsb::testing {
namespace {

class AutogradTest : public AbiTest {
 protected:
  void SetUp() override {
    AbiTest::SetUp();
    TSB_ASSERT_OK(tsb_plugin_load_bundled());  // Tuple: `two` returns one
    TSB_ASSERT_OK(tsb_module_load(AutogradFixture("net.pt").c_str(), Out(net_)));
    TSB_ASSERT_OK(tsb_module_set_training(net_.get(), false));  // dropout off
    expected_ = Expected();
  }

  // Every parameter's .grad equals PyTorch's "<prefix>.<name>"; then zeroed.
  void ExpectParameterGrads(const std::string& prefix) {
    size_t n = 0;
    TSB_ASSERT_OK(tsb_module_count_parameters(net_.get(), &n));
    ASSERT_EQ(n, 4u);
    for (size_t i = 0; i < n; ++i) {
      const char* name = nullptr;
      Value param, grad;
      TSB_ASSERT_OK(tsb_module_get_parameter(net_.get(), i, &name, param.out()));
      TSB_ASSERT_OK(tsb_tensor_get_grad(&param.get(), grad.out()));
      ASSERT_EQ(grad.get().type_index, TSB_TYPE_TENSOR) << name;
      const at::Tensor want = expected_.at(prefix + "." + name);
      EXPECT_TRUE(at::allclose(TensorOf(grad.get()), want, 1e-10, 1e-12))
          << prefix << "." << name << ": " << TensorOf(grad.get()) << " vs " << want;
      TSB_ASSERT_OK(tsb_tensor_zero_grad(&param.get()));
      Value zeroed;
      TSB_ASSERT_OK(tsb_tensor_get_grad(&param.get(), zeroed.out()));
      EXPECT_EQ(TensorOf(zeroed.get()).abs().sum().item<double>(), 0.0) << name;
    }
  }

  // x's .grad and every parameter's equal PyTorch's "<prefix>.x" and
  // "<prefix>.<name>".
  void ExpectGrads(const Value& x, const std::string& prefix) {
    Value x_grad;
    TSB_ASSERT_OK(tsb_tensor_get_grad(&x.get(), x_grad.out()));
    EXPECT_TRUE(at::allclose(TensorOf(x_grad.get()), expected_.at(prefix + ".x"), 1e-10, 1e-12));
    ExpectParameterGrads(prefix);
  }

  // (forward(x) * forward(x)).sum() through the ABI, x = PyTorch's input.
  void Loss(Value* loss) {
    Value x(Handle(expected_.at("x"))), y, square;
    TSB_ASSERT_OK(Call(net_.get(), "forward", {x.get()}, y.out()));
    TSB_ASSERT_OK(Op("aten::mul", {y.get(), y.get()}, square.out()));
    TSB_ASSERT_OK(Op("aten::sum", {square.get()}, loss->out()));
  }

  Module net_{nullptr};
  c10::Dict<std::string, at::Tensor> expected_;
};

TEST_F(AutogradTest, ForwardWithOutputGradientMatchesPyTorch) {
  Value x(Handle(expected_.at("x").clone()));
  TSB_ASSERT_OK(tsb_tensor_set_requires_grad(&x.get(), true));
  bool requires_grad = false;
  TSB_ASSERT_OK(tsb_tensor_get_requires_grad(&x.get(), &requires_grad));
  EXPECT_TRUE(requires_grad);
  Value none_yet;
  TSB_ASSERT_OK(tsb_tensor_get_grad(&x.get(), none_yet.out()));
  EXPECT_EQ(none_yet.get().type_index, TSB_TYPE_NONE);

  Value y, g(Handle(expected_.at("g")));
  TSB_ASSERT_OK(Call(net_.get(), "forward", {x.get()}, y.out()));
  EXPECT_TRUE(at::allclose(TensorOf(y.get()), expected_.at("y_eval")));
  TSB_ASSERT_OK(tsb_autograd_backward(&y.get(), 1, &g.get(), false));
  ExpectGrads(x, "forward");
}

TEST_F(AutogradTest, ScalarLossFromOperatorsNeedsNoOutputGradient) {
  Value loss;
  ASSERT_NO_FATAL_FAILURE(Loss(&loss));
  TSB_ASSERT_OK(tsb_autograd_backward(&loss.get(), 1, nullptr, false));
  ExpectParameterGrads("loss");
}

TEST_F(AutogradTest, SeveralOutputsWithTheirGradients) {
  Value x(Handle(expected_.at("x").clone())), pair;
  TSB_ASSERT_OK(tsb_tensor_set_requires_grad(&x.get(), true));
  TSB_ASSERT_OK(Call(net_.get(), "two", {x.get()}, pair.out()));
  Value s, z, gs(Handle(expected_.at("gs"))), gz(Handle(expected_.at("gz")));
  TSB_ASSERT_OK(tsb_list_get(&pair.get(), 0, s.out()));
  TSB_ASSERT_OK(tsb_list_get(&pair.get(), 1, z.out()));
  tsb_any outputs[2] = {s.get(), z.get()};
  tsb_any grads[2] = {gs.get(), gz.get()};
  TSB_ASSERT_OK(tsb_autograd_backward(outputs, 2, grads, false));
  ExpectGrads(x, "two");
}

TEST_F(AutogradTest, RetainGraphAllowsASecondBackwardAndGradientsAccumulate) {
  Value loss;
  ASSERT_NO_FATAL_FAILURE(Loss(&loss));
  TSB_ASSERT_OK(tsb_autograd_backward(&loss.get(), 1, nullptr, true));
  TSB_ASSERT_OK(tsb_autograd_backward(&loss.get(), 1, nullptr, false));
  Value bias, grad;
  TSB_ASSERT_OK(tsb_module_get_parameter(net_.get(), 3, nullptr, bias.out()));  // fc2.bias
  TSB_ASSERT_OK(tsb_tensor_get_grad(&bias.get(), grad.out()));
  EXPECT_TRUE(at::allclose(TensorOf(grad.get()), 2 * expected_.at("loss.fc2.bias")));

  Status again(tsb_autograd_backward(&loss.get(), 1, nullptr, false));
  ASSERT_NE(again.get(), nullptr);
  EXPECT_EQ(tsb_status_get_code(again.get()), TSB_ERR_TORCH);
  EXPECT_NE(std::string(tsb_status_get_message(again.get())).find("backward()"),
            std::string::npos)
      << tsb_status_get_message(again.get());
  size_t n = 0;
  TSB_ASSERT_OK(tsb_module_count_parameters(net_.get(), &n));
  for (size_t i = 0; i < n; ++i) {
    Value p;
    TSB_ASSERT_OK(tsb_module_get_parameter(net_.get(), i, nullptr, p.out()));
    TSB_ASSERT_OK(tsb_tensor_zero_grad(&p.get()));
  }
}

TEST_F(AutogradTest, NoGradModeRecordsNoGraphAndIsPerThread) {
  bool was = false, now = true;
  TSB_ASSERT_OK(tsb_grad_mode_set(false, &was));
  EXPECT_TRUE(was);
  TSB_ASSERT_OK(tsb_grad_mode_get(&now));
  EXPECT_FALSE(now);
  bool other_thread = false;
  std::thread([&] { tsb_status_free(tsb_grad_mode_get(&other_thread)); }).join();
  EXPECT_TRUE(other_thread);

  Value x(Handle(expected_.at("x"))), y;
  TSB_ASSERT_OK(Call(net_.get(), "forward", {x.get()}, y.out()));
  bool requires_grad = true;
  TSB_ASSERT_OK(tsb_tensor_get_requires_grad(&y.get(), &requires_grad));
  EXPECT_FALSE(requires_grad);
  Status s(tsb_autograd_backward(&y.get(), 1, nullptr, false));
  ASSERT_NE(s.get(), nullptr);
  EXPECT_EQ(tsb_status_get_code(s.get()), TSB_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(tsb_status_get_path(s.get()), "outputs[0]");
  TSB_ASSERT_OK(tsb_grad_mode_set(was, nullptr));
}

TEST_F(AutogradTest, DetachSharesStorageOutsideTheGraph) {
  Value x(Handle(expected_.at("x"))), y, d;
  TSB_ASSERT_OK(Call(net_.get(), "forward", {x.get()}, y.out()));
  TSB_ASSERT_OK(tsb_tensor_detach(&y.get(), d.out()));
  bool requires_grad = true;
  TSB_ASSERT_OK(tsb_tensor_get_requires_grad(&d.get(), &requires_grad));
  EXPECT_FALSE(requires_grad);
  EXPECT_EQ(TensorOf(d.get()).data_ptr(), TensorOf(y.get()).data_ptr());
}

TEST_F(AutogradTest, MisuseIsReportedWithWhatAndWhere) {
  Value ints, y, wrong(Handle(at::ones({2}, at::kDouble)));
  TSB_ASSERT_OK(tsb_list_new_int(nullptr, 0, ints.out()));
  Value long_tensor(Handle(at::arange(3)));
  Status s1(tsb_tensor_set_requires_grad(&long_tensor.get(), true));
  ASSERT_NE(s1.get(), nullptr);
  EXPECT_NE(std::string(tsb_status_get_message(s1.get())).find("floating point"),
            std::string::npos);
  Status s2(tsb_tensor_get_grad(&ints.get(), y.out()));
  ASSERT_NE(s2.get(), nullptr);
  EXPECT_EQ(tsb_status_get_code(s2.get()), TSB_ERR_TYPE);

  Value x(Handle(expected_.at("x")));
  TSB_ASSERT_OK(Call(net_.get(), "forward", {x.get()}, y.out()));
  Status s3(tsb_autograd_backward(&y.get(), 1, nullptr, false));  // 5 x 3: needs a gradient
  ASSERT_NE(s3.get(), nullptr);
  EXPECT_STREQ(tsb_status_get_path(s3.get()), "grad_outputs[0]");
  Status s4(tsb_autograd_backward(&y.get(), 1, &wrong.get(), false));
  ASSERT_NE(s4.get(), nullptr);
  EXPECT_NE(std::string(tsb_status_get_message(s4.get())).find("expected a gradient of shape [5, 3]"),
            std::string::npos)
      << tsb_status_get_message(s4.get());
  Status s5(tsb_tensor_set_requires_grad(&y.get(), false));  // not a leaf
  ASSERT_NE(s5.get(), nullptr);
  EXPECT_NE(std::string(tsb_status_get_message(s5.get())).find("leaf"), std::string::npos);
}

}  // namespace
}  // namespace tsb::testing
