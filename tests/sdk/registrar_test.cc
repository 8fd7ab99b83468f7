// tsb::Registrar's template members against a fake registrar table: what
// they register (names, TorchScript types, field names), and the function
// trampoline called directly on a torch::jit::Stack.
#include <torch/torch.h>

#include <stdexcept>

#include "tests/sdk/sdk_test_util.h"
#include "tests/sdk/test_types.h"
#include "tsbridge/plugin/codecs/all.hpp"
#include "tsbridge/plugin/plugin.hpp"

namespace tsb::sdk_testing {
namespace {

// What the fake table's slots received.
struct Captured {
  std::string type_name, annotation;
  std::vector<std::string> fields;
  std::string function_name, return_type;
  std::vector<std::string> arg_names, arg_types;
  tsb_plugin_function fn = nullptr;
  void* data = nullptr;
  void (*free_data)(void*) = nullptr;
  int add_function_calls = 0;
  std::vector<c10::optional<c10::IValue>> defaults;
};
Captured* captured = nullptr;

tsb_status* FakeAddType(void*, const char* name, const char* annotation,
                        const char* const* field_names, size_t num_fields) {
  captured->type_name = name;
  captured->annotation = annotation;
  captured->fields.assign(field_names, field_names + num_fields);
  return nullptr;
}

tsb_status* FakeAddFunction(void*, const char* name, const char* const* arg_names,
                            const char* const* arg_types, size_t num_args,
                            const char* return_type, tsb_plugin_function fn, void* data,
                            void (*free_data)(void*)) {
  ++captured->add_function_calls;
  captured->function_name = name;
  captured->arg_names.assign(arg_names, arg_names + num_args);
  captured->arg_types.assign(arg_types, arg_types + num_args);
  captured->return_type = return_type;
  captured->fn = fn;
  captured->data = data;
  captured->free_data = free_data;
  return nullptr;
}

// Slot 3, which Registrar::function uses: the same captures, plus defaults.
tsb_status* FakeAddFunctionWithArguments(void*, const char* name, const tsb_plugin_argument* args,
                                         size_t num_args, const char* return_type,
                                         tsb_plugin_function fn, void* data,
                                         void (*free_data)(void*)) {
  ++captured->add_function_calls;
  captured->function_name = name;
  captured->arg_names.clear();
  captured->arg_types.clear();
  captured->defaults.clear();
  for (size_t i = 0; i < num_args; ++i) {
    captured->arg_names.emplace_back(args[i].name);
    captured->arg_types.emplace_back(args[i].type);
    captured->defaults.push_back(
        args[i].default_value != nullptr
            ? c10::optional<c10::IValue>(*static_cast<const c10::IValue*>(args[i].default_value))
            : c10::nullopt);
  }
  captured->return_type = return_type;
  captured->fn = fn;
  captured->data = data;
  captured->free_data = free_data;
  return nullptr;
}

class RegistrarTest : public SdkTest {
 protected:
  RegistrarTest() {
    table_.abi_major = TSB_PLUGIN_ABI_MAJOR;
    table_.abi_minor = TSB_PLUGIN_ABI_MINOR;
    table_.num_slots = TSB_REGISTRAR_NUM_SLOTS;
    table_.add_type = &FakeAddType;
    table_.add_function = &FakeAddFunction;
    table_.add_function_with_arguments = &FakeAddFunctionWithArguments;
    captured = &captured_;
  }
  ~RegistrarTest() override {
    if (captured_.free_data != nullptr) captured_.free_data(captured_.data);
    captured = nullptr;
  }

  // Calls the registered trampoline on `args`; the stack is left as the
  // function left it.
  Status Call(torch::jit::Stack& stack) {
    return Status(captured_.fn(captured_.data, &stack));
  }

  tsb_registrar table_{};
  Captured captured_;
};

std::tuple<at::Tensor, at::Tensor> Relabel(const at::Tensor& col, std::vector<int64_t> idx) {
  return {col + static_cast<double>(idx.size()), torch::tensor(idx)};
}
int64_t Throws(int64_t) { throw std::runtime_error("no luck"); }
int64_t TorchFails(int64_t x) {
  TORCH_CHECK(x > 0, "x must be positive, got ", x);
  return x;
}
int last_seen = 0;
void Record(int32_t x) { last_seen = x; }
tsb_test::geo::Point Move(tsb_test::geo::Point p, double dx) { return {p.x + dx, p.label}; }
// How many references its arguments have while it runs.
at::Tensor UseCounts(const at::Tensor& a, const at::Tensor& b) {
  return torch::tensor(
      {static_cast<int64_t>(a.use_count()), static_cast<int64_t>(b.use_count())});
}
int last_borrowed_calls = 0;
void Touch(const at::Tensor&) { ++last_borrowed_calls; }

TEST_F(RegistrarTest, FunctionDeclaresTorchScriptTypes) {
  Registrar r(&table_);
  r.function("torchsparse::relabel", &Relabel, {"col", "idx"});
  ASSERT_EQ(r.TakeError(), nullptr);
  EXPECT_EQ(captured_.function_name, "torchsparse::relabel");
  EXPECT_EQ(captured_.arg_names, (std::vector<std::string>{"col", "idx"}));
  EXPECT_EQ(captured_.arg_types, (std::vector<std::string>{"Tensor", "List[int]"}));
  EXPECT_EQ(captured_.return_type, "Tuple[Tensor, Tensor]");
}

TEST_F(RegistrarTest, TrampolineConvertsCallsAndPushesTheResult) {
  Registrar r(&table_);
  r.function("torchsparse::relabel", &Relabel, {"col", "idx"});
  torch::jit::Stack stack{torch::zeros({2}), Codec<std::vector<int64_t>>::ToIValue({4, 5, 6})};
  Status status = Call(stack);
  ASSERT_EQ(status.get(), nullptr) << tsb_status_get_message(status.get());
  ASSERT_EQ(stack.size(), 1u);
  auto result = Codec<std::tuple<at::Tensor, at::Tensor>>::FromIValue(stack[0]);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(std::get<0>(*result).equal(torch::full({2}, 3.0)));
  EXPECT_TRUE(std::get<1>(*result).equal(torch::tensor({4, 5, 6})));
}

// Parameters that are all `const at::Tensor&` read the stack's own tensors:
// the stack's reference is the only one the call adds (a copy would add
// another).
TEST_F(RegistrarTest, TensorReferencesBorrowTheStacksTensors) {
  Registrar r(&table_);
  r.function("test::use_counts", &UseCounts, {"a", "b"});
  at::Tensor a = torch::zeros({2}), b = torch::ones({2});
  torch::jit::Stack stack{a, b};
  Status status = Call(stack);
  ASSERT_EQ(status.get(), nullptr) << tsb_status_get_message(status.get());
  ASSERT_EQ(stack.size(), 1u);
  EXPECT_TRUE(stack[0].toTensor().equal(torch::tensor({int64_t{2}, int64_t{2}})));
  EXPECT_EQ(a.use_count(), 1);  // the stack's reference is gone
}

// A value that is not a Tensor takes the general path, and its words.
TEST_F(RegistrarTest, TensorReferenceGivenAnotherValueIsRefused) {
  Registrar r(&table_);
  r.function("test::use_counts", &UseCounts, {"a", "b"});
  torch::jit::Stack stack{torch::zeros({2}), int64_t{3}};
  Status status = Call(stack);
  EXPECT_EQ(tsb_status_get_code(status.get()), TSB_ERR_TYPE);
  EXPECT_STREQ(tsb_status_get_message(status.get()), "argument 'b': expected Tensor, got int 3");
}

TEST_F(RegistrarTest, VoidFunctionOfTensorReferencesReturnsNone) {
  Registrar r(&table_);
  r.function("test::touch", &Touch, {"t"});
  torch::jit::Stack stack{torch::zeros({1})};
  last_borrowed_calls = 0;
  Status status = Call(stack);
  ASSERT_EQ(status.get(), nullptr) << tsb_status_get_message(status.get());
  EXPECT_EQ(last_borrowed_calls, 1);
  ASSERT_EQ(stack.size(), 1u);
  EXPECT_TRUE(stack[0].isNone());
}

TEST_F(RegistrarTest, VoidFunctionReturnsNone) {
  Registrar r(&table_);
  r.function("test::record", &Record, {"x"});
  EXPECT_EQ(captured_.return_type, "None");
  EXPECT_EQ(captured_.arg_types, (std::vector<std::string>{"int"}));
  torch::jit::Stack stack{int64_t{42}};
  Status status = Call(stack);
  ASSERT_EQ(status.get(), nullptr) << tsb_status_get_message(status.get());
  EXPECT_EQ(last_seen, 42);
  ASSERT_EQ(stack.size(), 1u);
  EXPECT_TRUE(stack[0].isNone());
}

TEST_F(RegistrarTest, HanaStructsAsArgumentsAndResult) {
  Registrar r(&table_);
  r.function("geo::move", &Move, {"p", "dx"});
  EXPECT_EQ(captured_.arg_types, (std::vector<std::string>{"tsb_test.geo.Point", "float"}));
  EXPECT_EQ(captured_.return_type, "tsb_test.geo.Point");
  torch::jit::Stack stack{Codec<tsb_test::geo::Point>::ToIValue({1.0, 7}), 0.5};
  Status status = Call(stack);
  ASSERT_EQ(status.get(), nullptr) << tsb_status_get_message(status.get());
  EXPECT_EQ(*Codec<tsb_test::geo::Point>::FromIValue(stack.at(0)), (tsb_test::geo::Point{1.5, 7}));
}

TEST_F(RegistrarTest, WrongArgumentIsATypeErrorWithItsPath) {
  Registrar r(&table_);
  r.function("torchsparse::relabel", &Relabel, {"col", "idx"});
  torch::jit::Stack not_a_list{torch::zeros({2}), std::string("x")};
  Status top = Call(not_a_list);
  EXPECT_EQ(tsb_status_get_code(top.get()), TSB_ERR_TYPE);
  EXPECT_STREQ(tsb_status_get_message(top.get()),
               "argument 'idx': expected List[int], got str \"x\"");

  c10::impl::GenericList mixed(c10::AnyType::get());
  mixed.push_back(int64_t{1});
  mixed.push_back(std::string("a"));
  torch::jit::Stack bad_element{torch::zeros({2}), mixed};
  Status nested = Call(bad_element);
  EXPECT_EQ(tsb_status_get_code(nested.get()), TSB_ERR_TYPE);
  EXPECT_STREQ(tsb_status_get_message(nested.get()),
               "argument 'idx' \xE2\x86\x92 [1]: expected int, got str \"a\"");
}

TEST_F(RegistrarTest, ExceptionsBecomeStatuses) {
  Registrar r(&table_);
  r.function("test::throws", &Throws, {"x"});
  torch::jit::Stack stack{int64_t{1}};
  Status thrown = Call(stack);
  EXPECT_EQ(tsb_status_get_code(thrown.get()), TSB_ERR_INTERNAL);
  EXPECT_STREQ(tsb_status_get_message(thrown.get()), "no luck");
}

TEST_F(RegistrarTest, TorchErrorsKeepTheirMessageWithoutBacktrace) {
  Registrar r(&table_);
  r.function("test::torch_fails", &TorchFails, {"x"});
  torch::jit::Stack stack{int64_t{-3}};
  Status failed = Call(stack);
  EXPECT_EQ(tsb_status_get_code(failed.get()), TSB_ERR_TORCH);
  EXPECT_STREQ(tsb_status_get_message(failed.get()), "x must be positive, got -3");
}

// A wrong count of argument names no longer compiles (issue 11, point 6):
// tests/sdk/compile_fail/ checks that, where this test checked the runtime
// error "1 argument names for 2 arguments".

TEST_F(RegistrarTest, DefaultsCrossAsIValues) {
  Registrar r(&table_);
  r.function("test::move", &Move, {"p", tsb::arg("dx") = 0.5});
  ASSERT_EQ(r.TakeError(), nullptr);
  EXPECT_EQ(captured_.arg_names, (std::vector<std::string>{"p", "dx"}));
  ASSERT_EQ(captured_.defaults.size(), 2u);
  EXPECT_FALSE(captured_.defaults[0].has_value());
  ASSERT_TRUE(captured_.defaults[1].has_value());
  EXPECT_EQ(captured_.defaults[1]->toDouble(), 0.5);
}

TEST_F(RegistrarTest, TypeFromACodecName) {
  Registrar r(&table_);
  r.type<std::tuple<at::Tensor, at::Tensor>>("torchsparse.tensor_pair", {"first", "second"});
  ASSERT_EQ(r.TakeError(), nullptr);
  EXPECT_EQ(captured_.type_name, "torchsparse.tensor_pair");
  EXPECT_EQ(captured_.annotation, "Tuple[Tensor, Tensor]");
  EXPECT_EQ(captured_.fields, (std::vector<std::string>{"first", "second"}));
}

TEST_F(RegistrarTest, TypeFromAHanaStruct) {
  Registrar r(&table_);
  r.type<tsb_test::geo::Batch>();
  ASSERT_EQ(r.TakeError(), nullptr);
  EXPECT_EQ(captured_.type_name, "tsb_test.geo.Batch");
  EXPECT_EQ(captured_.annotation, "Tuple[Tensor, List[tsb_test.geo.Point], str]");
  EXPECT_EQ(captured_.fields, (std::vector<std::string>{"values", "points", "name"}));
}

}  // namespace
}  // namespace tsb::sdk_testing
