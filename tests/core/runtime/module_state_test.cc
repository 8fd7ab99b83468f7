// Modules as torch.jit.load's users expect them: train/eval (recursive),
// named parameters and buffers that are the module's own tensors,
// attributes, children, code and graph.
#include <algorithm>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"

#include <gtest/gtest.h>

#include "tests/core/runtime/runtime_testing.h"

namespace tsb::testing {
namespace {

class ModuleStateTest : public AbiTest {
 protected:
  void SetUp() override {
    AbiTest::SetUp();
    TSB_ASSERT_OK(tsb_module_load(AutogradFixture("net.pt").c_str(), Out(net_)));
  }

  at::Tensor Forward(const at::Tensor& x) {
    Value in(Handle(x)), y;
    Status s(Call(net_.get(), "forward", {in.get()}, y.out()));
    EXPECT_EQ(s.get(), nullptr) << tsb_status_get_message(s.get());
    return s.ok() ? TensorOf(y.get()).detach().clone() : at::Tensor();
  }

  Module net_{nullptr};
};

TEST_F(ModuleStateTest, EvalMakesDropoutTheIdentityAndTrainDoesNot) {
  const at::Tensor x = Expected().at("x");
  bool training = false;
  TSB_ASSERT_OK(tsb_module_get_training(net_.get(), &training));
  EXPECT_TRUE(training);  // as saved
  EXPECT_FALSE(at::equal(Forward(x), Forward(x)));  // dropout draws each call

  TSB_ASSERT_OK(tsb_module_set_training(net_.get(), false));
  TSB_ASSERT_OK(tsb_module_get_training(net_.get(), &training));
  EXPECT_FALSE(training);
  const at::Tensor eval = Forward(x);
  EXPECT_TRUE(at::equal(eval, Forward(x)));
  EXPECT_TRUE(at::allclose(eval, Expected().at("y_eval"), 1e-12, 1e-12));  // PyTorch's eval()

  // Recursive, as Module.train(mode): the dropout child follows.
  size_t n = 0;
  TSB_ASSERT_OK(tsb_module_count_children(net_.get(), &n));
  ASSERT_EQ(n, 3u);
  const char* name = nullptr;
  Module drop{nullptr};
  TSB_ASSERT_OK(tsb_module_get_child(net_.get(), 1, &name, Out(drop)));
  EXPECT_STREQ(name, "drop");
  TSB_ASSERT_OK(tsb_module_get_training(drop.get(), &training));
  EXPECT_FALSE(training);

  TSB_ASSERT_OK(tsb_module_set_training(net_.get(), true));
  TSB_ASSERT_OK(tsb_module_get_training(drop.get(), &training));
  EXPECT_TRUE(training);
  EXPECT_FALSE(at::equal(Forward(x), eval));
}

TEST_F(ModuleStateTest, ParametersAndBuffersAreTheModulesOwnTensors) {
  std::vector<std::string> names;
  size_t n = 0;
  TSB_ASSERT_OK(tsb_module_count_parameters(net_.get(), &n));
  for (size_t i = 0; i < n; ++i) {
    const char* name = nullptr;
    Value p;
    TSB_ASSERT_OK(tsb_module_get_parameter(net_.get(), i, &name, p.out()));
    names.push_back(name);
    bool requires_grad = false;
    TSB_ASSERT_OK(tsb_tensor_get_requires_grad(&p.get(), &requires_grad));
    EXPECT_TRUE(requires_grad) << name;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"}));
  TSB_ASSERT_OK(tsb_module_count_buffers(net_.get(), &n));
  ASSERT_EQ(n, 1u);
  const char* buffer_name = nullptr;
  Value scale;
  TSB_ASSERT_OK(tsb_module_get_buffer(net_.get(), 0, &buffer_name, scale.out()));
  EXPECT_STREQ(buffer_name, "scale");
  EXPECT_EQ(TensorOf(scale.get()).item<double>(), 2.0);

  // An in-place update from the host (what an optimizer step does) is seen
  // by the module: fc2's weight and bias zeroed leave zeros.
  TSB_ASSERT_OK(tsb_module_set_training(net_.get(), false));
  bool was = true;
  TSB_ASSERT_OK(tsb_grad_mode_set(false, &was));
  for (size_t i : {2u, 3u}) {
    Value p, zeroed;
    TSB_ASSERT_OK(tsb_module_get_parameter(net_.get(), i, nullptr, p.out()));
    TSB_ASSERT_OK(Op("aten::zero_", {p.get()}, zeroed.out()));
    uint64_t a = 0, b = 1;
    TSB_ASSERT_OK(tsb_any_get_id(&p.get(), &a));
    TSB_ASSERT_OK(tsb_any_get_id(&zeroed.get(), &b));
    EXPECT_EQ(a, b);
  }
  TSB_ASSERT_OK(tsb_grad_mode_set(was, nullptr));
  EXPECT_TRUE(at::equal(Forward(Expected().at("x")), at::zeros({5, 3}, at::kDouble)));

  Status out_of_range(tsb_module_get_parameter(net_.get(), 4, nullptr, scale.out()));
  ASSERT_NE(out_of_range.get(), nullptr);
  EXPECT_EQ(tsb_status_get_code(out_of_range.get()), TSB_ERR_OUT_OF_RANGE);
}

// state_dict() / load_state_dict(), against PyTorch's keys and the output
// of PyTorch's own Net carrying the other state.
TEST_F(ModuleStateTest, StateDictOutAndIn) {
  Value state;
  TSB_ASSERT_OK(tsb_module_get_state(net_.get(), state.out()));
  const c10::IValue dict = FromBoundary(state.get());
  ASSERT_TRUE(dict.isGenericDict());
  std::vector<std::string> keys;
  for (const auto& entry : dict.toGenericDict()) keys.push_back(entry.key().toStringRef());
  std::ifstream key_file(AutogradFixture("state_keys.txt"));
  std::string want_keys((std::istreambuf_iterator<char>(key_file)), std::istreambuf_iterator<char>());
  EXPECT_EQ(absl::StrJoin(keys, " "), want_keys);  // PyTorch's state_dict() order

  // Another Net's state_dict, as torch.save wrote it.
  std::ifstream in(AutogradFixture("other_state.pt"), std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Value other;
  TSB_ASSERT_OK(tsb_pickle_read(bytes.data(), bytes.size(), other.out()));
  TSB_ASSERT_OK(tsb_module_set_training(net_.get(), false));
  TSB_ASSERT_OK(tsb_module_set_state(net_.get(), &other.get(), /*strict=*/true));
  EXPECT_TRUE(at::allclose(Forward(Expected().at("x")), Expected().at("y_other"), 1e-12, 1e-12));
  // The state given out before is the module's own tensors: it changed too.
  const auto after = FromBoundary(state.get()).toGenericDict();
  const auto loaded = FromBoundary(other.get()).toGenericDict();
  EXPECT_TRUE(at::equal(after.at("fc1.weight").toTensor(), loaded.at("fc1.weight").toTensor()));

  // Refusals, each before anything is copied.
  auto with = [&](const char* annotation, c10::IValue value) {
    return Value(Boundary(value, annotation));
  };
  c10::Dict<std::string, at::Tensor> bad;
  for (const auto& entry : loaded) bad.insert(entry.key().toStringRef(), entry.value().toTensor());
  bad.insert_or_assign("fc2.bias", at::zeros({4}, at::kDouble));
  Value misshaped = with("Dict[str, Tensor]", c10::IValue(bad));
  Status shape(tsb_module_set_state(net_.get(), &misshaped.get(), true));
  EXPECT_EQ(tsb_status_get_code(shape.get()), TSB_ERR_TYPE);
  EXPECT_EQ(std::string(tsb_status_get_message(shape.get())),
            "argument 'state' \u2192 key \"fc2.bias\": expected shape [3], got [4]");
  bad.insert_or_assign("fc2.bias", at::zeros({3}, at::kDouble));
  EXPECT_EQ(bad.erase("scale"), 1u);
  bad.insert("extra", at::zeros({1}));
  Value mismatched = with("Dict[str, Tensor]", c10::IValue(bad));
  Status keys_status(tsb_module_set_state(net_.get(), &mismatched.get(), true));
  EXPECT_EQ(std::string(tsb_status_get_message(keys_status.get())),
            "the state does not match the module's: missing keys \"scale\"; unexpected keys "
            "\"extra\"");
  EXPECT_TRUE(at::allclose(Forward(Expected().at("x")), Expected().at("y_other"), 1e-12, 1e-12));
  // strict=false: what matches is loaded (fc2.bias zeroed), the rest ignored.
  TSB_ASSERT_OK(tsb_module_set_state(net_.get(), &mismatched.get(), false));
  Value bias;
  TSB_ASSERT_OK(tsb_module_get_parameter(net_.get(), 3, nullptr, bias.out()));
  EXPECT_TRUE(at::equal(TensorOf(bias.get()), at::zeros({3}, at::kDouble)));
  Value not_a_dict = with("List[int]", c10::IValue(c10::List<int64_t>({1})));
  Status kind(tsb_module_set_state(net_.get(), &not_a_dict.get(), true));
  EXPECT_EQ(tsb_status_get_code(kind.get()), TSB_ERR_TYPE);
}

TEST_F(ModuleStateTest, RegisterParameterAndBuffer) {
  Value w(Handle(at::ones({2}, at::kDouble))), b(Handle(at::zeros({1}, at::kDouble)));
  const char* first = nullptr;
  Value first_tensor;
  TSB_ASSERT_OK(tsb_module_get_parameter(net_.get(), 0, &first, first_tensor.out()));
  TSB_ASSERT_OK(tsb_module_set_parameter(net_.get(), "extra", &w.get(), /*is_buffer=*/false));
  TSB_ASSERT_OK(tsb_module_set_parameter(net_.get(), "count", &b.get(), /*is_buffer=*/true));
  EXPECT_STREQ(first, "fc1.weight");  // a name given out before stays valid
  Value state;
  TSB_ASSERT_OK(tsb_module_get_state(net_.get(), state.out()));
  std::vector<std::string> keys;
  for (const auto& entry : FromBoundary(state.get()).toGenericDict()) {
    keys.push_back(entry.key().toStringRef());
  }
  EXPECT_EQ(absl::StrJoin(keys, " "), "extra scale count fc1.weight fc1.bias fc2.weight fc2.bias");
  size_t n = 0;
  TSB_ASSERT_OK(tsb_module_count_parameters(net_.get(), &n));
  EXPECT_EQ(n, 5u);
  Value got;
  TSB_ASSERT_OK(tsb_module_get_attribute(net_.get(), "extra", got.out()));
  EXPECT_TRUE(at::equal(TensorOf(got.get()), at::ones({2}, at::kDouble)));
  // Saved and loaded back, the module keeps them.
  char* data = nullptr;
  size_t size = 0;
  TSB_ASSERT_OK(tsb_module_write(net_.get(), &data, &size));
  Module copy{nullptr};
  TSB_ASSERT_OK(tsb_module_read(data, size, Out(copy)));
  tsb_string_free(data);
  TSB_ASSERT_OK(tsb_module_count_buffers(copy.get(), &n));
  EXPECT_EQ(n, 2u);

  Status not_tensor(tsb_module_set_parameter(net_.get(), "note", &w.get(), false));
  EXPECT_EQ(std::string(tsb_status_get_message(not_tensor.get())),
            "parameter 'note': __torch__.Net already has an attribute 'note' that is not a "
            "parameter");
  tsb_any three = tsb_any_int(3);
  Status not_a_tensor(tsb_module_set_parameter(net_.get(), "p", &three, false));
  EXPECT_EQ(std::string(tsb_status_get_message(not_a_tensor.get())),
            "parameter 'p': expected Tensor, got int 3");
}

// graph_for(): the kinds of node in the graph PyTorch's graph_for gives.
TEST_F(ModuleStateTest, GraphForTheArguments) {
  TSB_ASSERT_OK(tsb_module_set_training(net_.get(), false));
  Value x(Handle(Expected().at("x")));
  tsb_call_args args = tsb_call_args_make(&x.get(), 1);
  char* text = nullptr;
  TSB_ASSERT_OK(tsb_module_get_graph_for(net_.get(), "forward", &args, &text));
  std::string ours(text);
  tsb_string_free(text);
  std::ifstream in(AutogradFixture("graph_for.txt"));
  std::string theirs((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto kinds = [](const std::string& graph) {
    std::set<std::string> out;
    std::regex kind(R"(= ([a-z_]+::[A-Za-z_0-9]+))");
    for (std::sregex_iterator it(graph.begin(), graph.end(), kind), end; it != end; ++it) {
      out.insert((*it)[1]);
    }
    return out;
  };
  EXPECT_FALSE(kinds(theirs).empty());
  EXPECT_EQ(kinds(ours), kinds(theirs)) << ours << "\n---\n" << theirs;
  Status wrong(tsb_module_get_graph_for(net_.get(), "nope", &args, &text));
  EXPECT_EQ(tsb_status_get_code(wrong.get()), TSB_ERR_NOT_FOUND);
}

TEST_F(ModuleStateTest, AttributesGetAndSetByDeclaredType) {
  size_t n = 0;
  TSB_ASSERT_OK(tsb_module_count_attributes(net_.get(), &n));
  std::vector<std::string> names;
  for (size_t i = 0; i < n; ++i) {
    const char* name = nullptr;
    TSB_ASSERT_OK(tsb_module_get_attribute_name(net_.get(), i, &name));
    names.push_back(name);
  }
  for (const char* want : {"training", "fc1", "drop", "fc2", "scale", "note"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;
  }
  Value note;
  TSB_ASSERT_OK(tsb_module_get_attribute(net_.get(), "note", note.out()));
  const char* data = nullptr;
  size_t len = 0;
  TSB_ASSERT_OK(tsb_str_get(&note.get(), &data, &len));
  EXPECT_EQ(std::string(data, len), "hello");

  tsb_any bye = tsb_any_borrowed_str("bye");
  TSB_ASSERT_OK(tsb_module_set_attribute(net_.get(), "note", &bye));
  Value again;
  TSB_ASSERT_OK(tsb_module_get_attribute(net_.get(), "note", again.out()));
  TSB_ASSERT_OK(tsb_str_get(&again.get(), &data, &len));
  EXPECT_EQ(std::string(data, len), "bye");

  tsb_any three = tsb_any_int(3);
  Status wrong(tsb_module_set_attribute(net_.get(), "note", &three));
  ASSERT_NE(wrong.get(), nullptr);
  EXPECT_EQ(tsb_status_get_code(wrong.get()), TSB_ERR_TYPE);
  EXPECT_STREQ(tsb_status_get_path(wrong.get()), "attribute 'note'");

  Status missing(tsb_module_get_attribute(net_.get(), "nope", again.out()));
  ASSERT_NE(missing.get(), nullptr);
  EXPECT_EQ(tsb_status_get_code(missing.get()), TSB_ERR_NOT_FOUND);
  EXPECT_NE(std::string(tsb_status_get_message(missing.get())).find("fc1"), std::string::npos);

  Value sub;  // a submodule reads as an Object
  TSB_ASSERT_OK(tsb_module_get_attribute(net_.get(), "fc1", sub.out()));
  tsb_kind kind = TSB_KIND_INVALID;
  TSB_ASSERT_OK(tsb_type_get_kind(sub.get().type_index, &kind));
  EXPECT_EQ(kind, TSB_KIND_OBJECT);
  Status submodule(tsb_module_set_attribute(net_.get(), "fc1", &sub.get()));
  ASSERT_NE(submodule.get(), nullptr);
  EXPECT_EQ(tsb_status_get_code(submodule.get()), TSB_ERR_UNSUPPORTED);
}

TEST_F(ModuleStateTest, CodeAndGraphAsText) {
  char* code = nullptr;
  TSB_ASSERT_OK(tsb_module_get_code(net_.get(), &code));
  std::string text(code);
  tsb_string_free(code);
  EXPECT_NE(text.find("def forward(self"), std::string::npos) << text;
  EXPECT_NE(text.find("def two(self"), std::string::npos) << text;

  char* graph = nullptr;
  TSB_ASSERT_OK(tsb_module_get_graph(net_.get(), "forward", &graph));
  std::string g(graph);
  tsb_string_free(graph);
  EXPECT_NE(g.find("graph(%self"), std::string::npos) << g;
  EXPECT_NE(g.find("aten::mul"), std::string::npos) << g;
  Status missing(tsb_module_get_graph(net_.get(), "nope", &graph));
  EXPECT_EQ(tsb_status_get_code(missing.get()), TSB_ERR_NOT_FOUND);
}

}  // namespace
}  // namespace tsb::testing
