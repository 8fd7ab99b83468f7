// Modules through the host ABI: load, method schemas, calls with positional,
// keyword and default arguments, every binding error, compile (methods and
// free functions), save, and bytes.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

#include <ATen/ATen.h>
#include <torch/csrc/jit/mobile/import.h>
#include <torch/csrc/jit/mobile/module.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/core/runtime/runtime_testing.h"

namespace tsb::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

class ModuleTest : public BundledPluginsTest {
 protected:
  void SetUp() override {
    BundledPluginsTest::SetUp();
    TSB_ASSERT_OK(tsb_module_load(Fixture("calls.pt").c_str(), Out(module_)));
  }

  // P(a, b) as a host builds it: a plain tuple, coerced by the schema.
  static tsb_any MakeP(tsb_any a, tsb_any b) {
    tsb_any items[2] = {a, b};
    tsb_any out{};
    Status s(tsb_tuple_new(items, 2, &out));
    EXPECT_EQ(s.get(), nullptr) << MessageOf(s);
    return out;
  }

  const tsb_schema_info* Method(const char* name) {
    size_t n = 0;
    Status s(tsb_module_count_methods(module_.get(), &n));
    for (size_t i = 0; i < n; ++i) {
      info_.struct_size = sizeof(info_);
      Status d(tsb_module_get_method(module_.get(), i, &info_));
      if (d.ok() && std::string(info_.name) == name) return &info_;
    }
    return nullptr;
  }

  Module module_{nullptr};
  tsb_schema_info info_{};
};

TEST_F(ModuleTest, ListsMethodsWithSchemas) {
  size_t n = 0;
  TSB_ASSERT_OK(tsb_module_count_methods(module_.get(), &n));
  EXPECT_EQ(n, 8u);  // forward, add, color, fail, noop, point, split, total
  const tsb_schema_info* forward = Method("forward");
  ASSERT_NE(forward, nullptr);
  EXPECT_EQ(std::string(forward->schema),
            "forward(__torch__.Calls self, Tensor x, __torch__.P p, float scale=2., "
            "int bias=0) -> Tensor");
  ASSERT_EQ(forward->num_arguments, 4u);  // without self
  const tsb_argument_info* a = forward->arguments;
  EXPECT_STREQ(a[0].name, "x");
  EXPECT_STREQ(a[0].annotation, "Tensor");
  EXPECT_EQ(a[0].type_index, TSB_TYPE_TENSOR);
  EXPECT_FALSE(a[0].has_default);
  EXPECT_STREQ(a[1].name, "p");
  EXPECT_STREQ(a[1].annotation, "__torch__.P");
  EXPECT_EQ(::tsb::KindOf(a[1].type_index), TSB_KIND_NAMEDTUPLE);
  EXPECT_STREQ(a[2].name, "scale");
  EXPECT_EQ(a[2].type_index, TSB_TYPE_FLOAT);
  EXPECT_TRUE(a[2].has_default);
  EXPECT_FALSE(a[2].kwarg_only);
  EXPECT_STREQ(a[2].default_json, "2.0");  // docs/json.md's form, by the type
  EXPECT_STREQ(a[3].name, "bias");
  EXPECT_STREQ(a[3].default_json, "0");
  EXPECT_EQ(a[0].default_json, nullptr);
  ASSERT_EQ(forward->num_returns, 1u);
  EXPECT_EQ(forward->returns[0].type_index, TSB_TYPE_TENSOR);

  const tsb_schema_info* split = Method("split");
  ASSERT_NE(split, nullptr);
  EXPECT_STREQ(split->returns[0].annotation, "Tuple[Tensor, int]");
}

TEST_F(ModuleTest, SchemaInfoChecksStructSize) {
  tsb_schema_info info{};  // struct_size left 0
  Status s(tsb_module_get_method(module_.get(), 0, &info));
  EXPECT_EQ(tsb_status_get_code(s.get()), TSB_ERR_INVALID_ARGUMENT);
  info.struct_size = sizeof(info);
  Status r(tsb_module_get_method(module_.get(), 99, &info));
  EXPECT_EQ(tsb_status_get_code(r.get()), TSB_ERR_OUT_OF_RANGE);
}

TEST_F(ModuleTest, CallsWithPositionalKeywordAndDefaults) {
  Value x(Boundary(at::tensor({1.0, 1.0, 1.0})));
  Value p(MakeP(tsb_any_int(1), tsb_any_none()));
  Value out;
  // x * 2 (default scale) + w + p.a
  TSB_ASSERT_OK(CallModule(module_.get(), "forward", {x.get(), p.get()}, {}, out.out()));
  EXPECT_TRUE(at::allclose(TensorOf(out.get()), at::tensor({4.0, 5.0, 6.0})));

  Value p2(MakeP(tsb_any_int(1), tsb_any_int(10)));
  Value out2;
  TSB_ASSERT_OK(CallModule(module_.get(), "forward", {x.get()},
                           {{"bias", tsb_any_int(100)}, {"p", p2.get()}, {"scale", tsb_any_int(3)}},
                           out2.out()));
  // x * 3 + w + 1 + 10 + 100; the int scale widened to float.
  EXPECT_TRUE(at::allclose(TensorOf(out2.get()), at::tensor({115.0, 116.0, 117.0})));

  Value sum;
  TSB_ASSERT_OK(CallModule(module_.get(), "add", {tsb_any_int(1)}, {}, sum.out()));
  EXPECT_EQ(sum.get().type_index, TSB_TYPE_INT);
  EXPECT_EQ(sum.get().u.i, 11);
  TSB_ASSERT_OK(CallModule(module_.get(), "add", {}, {{"b", tsb_any_int(2)}, {"a", tsb_any_int(1)}},
                           sum.out()));
  EXPECT_EQ(sum.get().u.i, 3);
}

TEST_F(ModuleTest, ConvertsContainersByTheSchema) {
  // A host list of Any (an int and a float) becomes the List[float] asked for.
  tsb_any items[2] = {tsb_any_int(1), tsb_any_float(2.5)};
  Value list;
  TSB_ASSERT_OK(tsb_list_new(TSB_TYPE_ANY, items, 2, list.out()));
  Value total;
  TSB_ASSERT_OK(CallModule(module_.get(), "total", {list.get()}, {}, total.out()));
  EXPECT_EQ(total.get().type_index, TSB_TYPE_FLOAT);
  EXPECT_DOUBLE_EQ(total.get().u.d, 3.5);

  // A Tuple[Tensor, int] result crosses as a tuple of the schema's type.
  Value x(Boundary(at::tensor({1.0, 2.0})));
  Value split;
  TSB_ASSERT_OK(CallModule(module_.get(), "split", {x.get()}, {}, split.out()));
  EXPECT_EQ(split.get().type_index, TypeOf("Tuple[Tensor, int]"));
  Value numel;
  TSB_ASSERT_OK(tsb_list_get(&split.get(), 1, numel.out()));
  EXPECT_EQ(numel.get().u.i, 2);
}

TEST_F(ModuleTest, TypeErrorNamesTheArgumentAndThePath) {
  Value x(Boundary(at::tensor({1.0})));
  Value p(MakeP(tsb_any_int(1), tsb_any_borrowed_str("x")));
  Value out;
  Status s(CallModule(module_.get(), "forward", {x.get(), p.get()}, {}, out.out()));
  EXPECT_EQ(tsb_status_get_code(s.get()), TSB_ERR_TYPE);
  EXPECT_EQ(MessageOf(s),
            "forward(): argument 'p' \xE2\x86\x92 field 'b': expected Optional[int], got str \"x\"");
  EXPECT_STREQ(tsb_status_get_path(s.get()), "forward(): argument 'p' \xE2\x86\x92 field 'b'");
  EXPECT_EQ(out.get().type_index, TSB_TYPE_INVALID);  // untouched
}

TEST_F(ModuleTest, BindingErrors) {
  Value out;
  struct Case {
    std::vector<tsb_any> args;
    std::vector<Kw> kw;
    const char* message;
  };
  const Case cases[] = {
      {{tsb_any_int(1)}, {{"c", tsb_any_int(2)}}, "add(): unknown keyword argument 'c'"},
      {{}, {{"b", tsb_any_int(2)}}, "add(): missing argument 'a'"},
      {{tsb_any_int(1), tsb_any_int(2), tsb_any_int(3)}, {},
       "add(): expected at most 2 positional arguments, got 3"},
      {{tsb_any_int(1)}, {{"a", tsb_any_int(2)}}, "add(): argument 'a' given twice"},
      {{tsb_any_float(1.5)}, {}, "add(): argument 'a': expected int, got float 1.5"},
  };
  for (const Case& c : cases) {
    Status s(CallModule(module_.get(), "add", c.args, c.kw, out.out()));
    EXPECT_EQ(MessageOf(s), c.message);
    EXPECT_NE(tsb_status_get_code(s.get()), TSB_OK);
  }
  Status unknown(CallModule(module_.get(), "fwd", {}, {}, out.out()));
  EXPECT_EQ(tsb_status_get_code(unknown.get()), TSB_ERR_NOT_FOUND);
  EXPECT_EQ(MessageOf(unknown),
            "no method 'fwd' in __torch__.Calls; its methods: forward, add, color, fail, noop, "
            "point, split, total");
}

TEST_F(ModuleTest, TorchScriptExceptionNamesTheMethod) {
  Value out;
  Status s(CallModule(module_.get(), "fail", {tsb_any_int(-1)}, {}, out.out()));
  EXPECT_EQ(tsb_status_get_code(s.get()), TSB_ERR_TORCH);
  EXPECT_THAT(MessageOf(s), StartsWith("fail(): "));
  EXPECT_THAT(MessageOf(s), HasSubstr("k must not be negative"));
}

TEST_F(ModuleTest, LoadErrors) {
  tsb_module* m = nullptr;
  Status missing(tsb_module_load("/nonexistent/model.pt", &m));
  EXPECT_EQ(tsb_status_get_code(missing.get()), TSB_ERR_NOT_FOUND);
  EXPECT_EQ(MessageOf(missing), "cannot open module file \"/nonexistent/model.pt\"");
  Status null_out(tsb_module_load(Fixture("calls.pt").c_str(), nullptr));
  EXPECT_EQ(MessageOf(null_out), "argument 'out' is NULL");
  EXPECT_EQ(m, nullptr);
}

TEST_F(ModuleTest, CompiledModuleSavesAndReloads) {
  Module compiled{nullptr};
  TSB_ASSERT_OK(tsb_module_compile(
      "def twice(self, a: int, b: int = 1) -> int:\n"
      "    return (a + b) * 2\n",
      Out(compiled)));
  Value out;
  TSB_ASSERT_OK(CallModule(compiled.get(), "twice", {tsb_any_int(20)}, {}, out.out()));
  EXPECT_EQ(out.get().u.i, 42);

  std::string path = ::testing::TempDir() + "compiled_module.pt";
  TSB_ASSERT_OK(tsb_module_save(compiled.get(), path.c_str()));
  Module reloaded{nullptr};
  TSB_ASSERT_OK(tsb_module_load(path.c_str(), Out(reloaded)));
  TSB_ASSERT_OK(CallModule(reloaded.get(), "twice", {tsb_any_int(1)}, {{"b", tsb_any_int(2)}}, out.out()));
  EXPECT_EQ(out.get().u.i, 6);
  std::remove(path.c_str());
}

TEST_F(ModuleTest, CompileErrorIsATorchError) {
  tsb_module* m = nullptr;
  Status s(tsb_module_compile("def broken(self) -> int:\n    return undefined_name\n", &m));
  EXPECT_EQ(tsb_status_get_code(s.get()), TSB_ERR_TORCH);
  EXPECT_THAT(MessageOf(s), HasSubstr("undefined_name"));
  EXPECT_EQ(m, nullptr);
}

TEST_F(ModuleTest, SavesForTheLiteInterpreter) {
  Module compiled{nullptr};
  TSB_ASSERT_OK(tsb_module_compile("def twice(self, a: int) -> int:\n    return a * 2\n",
                                   Out(compiled)));
  const std::string path = ::testing::TempDir() + "lite_module.ptl";
  TSB_ASSERT_OK(tsb_module_save_for_mobile(compiled.get(), path.c_str()));
  // LibTorch's own lite interpreter runs it.
  torch::jit::mobile::Module lite = torch::jit::_load_for_mobile(path);
  EXPECT_EQ(lite.run_method("twice", int64_t{21}).toInt(), 42);
  std::remove(path.c_str());
  Status null_path(tsb_module_save_for_mobile(compiled.get(), nullptr));
  EXPECT_EQ(MessageOf(null_path), "argument 'path' is NULL");
}

TEST_F(ModuleTest, CallsAMethodByItsIndexWithNoLookup) {
  Module compiled{nullptr};
  TSB_ASSERT_OK(tsb_module_compile(
      "def twice(self, a: int) -> int:\n    return a * 2\n"
      "def negate(self, a: int) -> int:\n    return -a\n",
      Out(compiled)));
  // Indices in tsb_module_get_method's order, resolved once by name.
  size_t count = 0;
  TSB_ASSERT_OK(tsb_module_count_methods(compiled.get(), &count));
  ASSERT_EQ(count, 2u);
  size_t twice = count, negate = count;
  for (size_t i = 0; i < count; ++i) {
    tsb_schema_info info{};
    info.struct_size = sizeof(info);
    TSB_ASSERT_OK(tsb_module_get_method(compiled.get(), i, &info));
    (std::string(info.name) == "twice" ? twice : negate) = i;
  }
  tsb_any a = tsb_any_int(21);
  const tsb_call_args args = tsb_call_args_make(&a, 1);
  Value out;
  TSB_ASSERT_OK(tsb_module_call_method(compiled.get(), twice, &args, out.out()));
  EXPECT_EQ(out.get().u.i, 42);
  TSB_ASSERT_OK(tsb_module_call_method(compiled.get(), negate, &args, out.out()));
  EXPECT_EQ(out.get().u.i, -21);
  // Errors name the method as a call by name does.
  tsb_any s = tsb_any_borrowed_str("x");
  const tsb_call_args bad = tsb_call_args_make(&s, 1);
  Status wrong(tsb_module_call_method(compiled.get(), twice, &bad, out.out()));
  EXPECT_EQ(MessageOf(wrong), "twice(): argument 'a': expected int, got str \"x\"");
  Status past(tsb_module_call_method(compiled.get(), 2, &args, out.out()));
  EXPECT_EQ(tsb_status_get_code(past.get()), TSB_ERR_OUT_OF_RANGE);
  EXPECT_EQ(MessageOf(past),
            "expected a method index below 2 (the module's methods), got 2");
}

TEST_F(ModuleTest, CompilesFreeFunctionsAsCompilationUnitDoes) {
  // The example: `def fn(x: Tensor)` without self, as R torch's
  // jit_compile and torch.jit.CompilationUnit take it; one calls the other.
  Module compiled{nullptr};
  TSB_ASSERT_OK(tsb_module_compile(
      "def fn(x: Tensor):\n"
      "    return torch.relu(x)\n"
      "def shifted(x: Tensor, by: int = 1) -> Tensor:\n"
      "    return fn(x) + by\n",
      Out(compiled)));
  const std::vector<tsb_schema_info> methods = compiled.Methods();
  ASSERT_EQ(methods.size(), 2u);
  const tsb_schema_info& info = methods[1];
  EXPECT_EQ(std::string(info.name), "shifted");
  EXPECT_EQ(info.num_arguments, 2u);  // no self to skip
  Value x(Boundary(c10::IValue(at::tensor({-1.0, 2.0}))));
  Value out;
  TSB_ASSERT_OK(CallModule(compiled.get(), "shifted", {x.get()}, {{"by", tsb_any_int(3)}},
                           out.out()));
  EXPECT_TRUE(at::equal(TensorOf(out.get()), at::tensor({3.0, 5.0})));
  TSB_ASSERT_OK(CallModule(compiled.get(), "fn", {x.get()}, {}, out.out()));
  EXPECT_TRUE(at::equal(TensorOf(out.get()), at::tensor({0.0, 2.0})));

  Status wrong(CallModule(compiled.get(), "fn", {tsb_any_int(3)}, {}, out.out()));
  EXPECT_EQ(MessageOf(wrong), "fn(): argument 'x': expected Tensor, got int 3");
  Status saved(tsb_module_save(compiled.get(), (::testing::TempDir() + "free.pt").c_str()));
  EXPECT_EQ(tsb_status_get_code(saved.get()), TSB_ERR_UNSUPPORTED);
  EXPECT_THAT(MessageOf(saved), HasSubstr("a module of free functions"));
  char* data = nullptr;
  size_t size = 0;
  Status written(tsb_module_write(compiled.get(), &data, &size));
  EXPECT_THAT(MessageOf(written), HasSubstr("cannot be saved"));
  EXPECT_EQ(data, nullptr);
}

TEST_F(ModuleTest, WritesAndReadsAModuleAsBytes) {
  char* data = nullptr;
  size_t size = 0;
  TSB_ASSERT_OK(tsb_module_write(module_.get(), &data, &size));
  ASSERT_GT(size, 4u);
  EXPECT_EQ(std::string(data, 2), "PK");  // torch.jit.save's zip archive
  Module copy{nullptr};
  TSB_ASSERT_OK(tsb_module_read(data, size, Out(copy)));
  tsb_string_free(data);
  Value out;
  TSB_ASSERT_OK(CallModule(copy.get(), "add", {tsb_any_int(1)}, {}, out.out()));
  EXPECT_EQ(out.get().u.i, 11);

  // The bytes torch.jit.save wrote (the fixture file) load the same way.
  std::ifstream file(Fixture("calls.pt"), std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  Module from_file_bytes{nullptr};
  TSB_ASSERT_OK(tsb_module_read(bytes.data(), bytes.size(), Out(from_file_bytes)));
  EXPECT_EQ(from_file_bytes.Methods().size(), 8u);
}

TEST_F(ModuleTest, ReadRefusesBytesThatAreNoArchive) {
  tsb_module* m = nullptr;
  Status empty(tsb_module_read("", 0, &m));
  EXPECT_EQ(MessageOf(empty), "no bytes to read a module from (size is 0)");
  Status null_data(tsb_module_read(nullptr, 3, &m));
  EXPECT_EQ(MessageOf(null_data), "argument 'data' is NULL");
  const std::string junk = "not a zip archive at all";
  Status junk_status(tsb_module_read(junk.data(), junk.size(), &m));
  EXPECT_NE(junk_status.get(), nullptr);
  // Cut short: every prefix of a real archive is refused, none crashes.
  char* data = nullptr;
  size_t size = 0;
  TSB_ASSERT_OK(tsb_module_write(module_.get(), &data, &size));
  for (size_t cut : {size / 4, size / 2, size - 1}) {
    Status cut_status(tsb_module_read(data, cut, &m));
    EXPECT_NE(cut_status.get(), nullptr) << "prefix of " << cut << " bytes";
  }
  tsb_string_free(data);
  EXPECT_EQ(m, nullptr);
}

// The types a module declares are named through it: each module's own, so
// two loads of one archive (two "__torch__.Counter"s) stay apart.
TEST_F(ModuleTest, ParseTypeKnowsTheModulesOwnTypes) {
  int32_t counter = TSB_TYPE_INVALID;
  TSB_ASSERT_OK(tsb_module_parse_type(module_.get(), "__torch__.Counter", &counter));
  Value attribute;
  TSB_ASSERT_OK(tsb_module_get_attribute(module_.get(), "counter", attribute.out()));
  EXPECT_EQ(attribute.get().type_index, counter);
  int32_t points = TSB_TYPE_INVALID;
  TSB_ASSERT_OK(tsb_module_parse_type(module_.get(), "List[__torch__.P]", &points));
  tsb_type_info info{};
  info.struct_size = sizeof info;
  TSB_ASSERT_OK(tsb_type_get_info(points, &info));
  EXPECT_EQ(info.kind, TSB_KIND_LIST);

  Module other{nullptr};
  TSB_ASSERT_OK(tsb_module_load(Fixture("calls.pt").c_str(), Out(other)));
  int32_t other_counter = TSB_TYPE_INVALID;
  TSB_ASSERT_OK(tsb_module_parse_type(other.get(), "__torch__.Counter", &other_counter));
  EXPECT_NE(other_counter, counter);

  int32_t global = TSB_TYPE_INVALID;
  Status s(tsb_type_parse("__torch__.Counter", &global));
  EXPECT_EQ(tsb_status_get_code(s.get()), TSB_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(MessageOf(s), HasSubstr("tsb_module_parse_type"));
  Status missing(tsb_module_parse_type(module_.get(), "__torch__.Nope", &global));
  EXPECT_EQ(tsb_status_get_code(missing.get()), TSB_ERR_INVALID_ARGUMENT);
}

}  // namespace
}  // namespace tsb::testing
