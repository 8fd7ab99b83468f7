// AOTInductor packages through the host ABI (core/runtime/aoti_package.cc):
// on LibTorch 2.6, a package PyTorch compiled (tests/core/runtime/
// make_pt2_fixtures.py) is called with the inputs PyTorch's own caller was
// given and must return what it returned, bit for bit; wrong shapes are
// refused with paths. On 1.13, loading one names the release it needs.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/compat/torch_compat.h"
#include "tests/testing/abi_test.h"
#include "tests/testing/build_paths.h"
#include "tsbridge/tsbridge.h"
#include "tsbridge/host/tsbridge.hpp"

namespace tsb::testing {
namespace {

using ::testing::HasSubstr;

std::string Fixture(const char* name) {
  return std::string(BuildPath("TSB_EXPORT_FIXTURES")) + "/" + name;
}

std::string Message(tsb_status* raw) {
  Status s(raw);
  return s.get() == nullptr ? "OK" : tsb_status_get_message(s.get());
}

#if !TSB_TORCH_AT_LEAST(2, 6)

TEST(AotiPackageTest, LoadingOneNamesTheLibTorchItNeeds) {
  std::string path = ::testing::TempDir() + "/any.pt2";
  std::ofstream(path) << "not read";
  tsb_module* m = nullptr;
  EXPECT_THAT(Message(tsb_module_load(path.c_str(), &m)),
              HasSubstr("an AOTInductor package (.pt2) needs LibTorch 2.6 or newer, and this "
                        "library was built with LibTorch 1.13"));
  EXPECT_EQ(m, nullptr);
  std::remove(path.c_str());
}

#else

// Output leaves are Optional[Tensor] and tuples Tuple: the bundled plugins'
// kinds, loaded first (each case runs in a process of its own).
class AotiPackageLoadTest : public BundledPluginsTest {};

class AotiPackageTest : public BundledPluginsTest {
 protected:
  void SetUp() override {
    BundledPluginsTest::SetUp();
    TSB_ASSERT_OK(tsb_module_load(Fixture("nested.pt2").c_str(), &module_));
    // What PyTorch's aoti_load_package was given and returned.
    std::ifstream file(Fixture("nested_io.pt"), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    TSB_ASSERT_OK(tsb_pickle_read(bytes.data(), bytes.size(), io_.out()));
  }
  void TearDown() override {
    tsb_module_free(module_);
    io_ = Value();
    BundledPluginsTest::TearDown();
  }

  Value Get(const Value& from, const char* key) {
    Value k = Value::Str(key), out;
    Status s(tsb_dict_get(&from.get(), &k.get(), out.out()));
    EXPECT_EQ(s.get(), nullptr) << tsb_status_get_message(s.get());
    return out;
  }
  std::vector<Value> Items(const Value& list) {
    size_t n = 0;
    Status s(tsb_any_len(&list.get(), &n));
    EXPECT_EQ(s.get(), nullptr) << tsb_status_get_message(s.get());
    std::vector<Value> items(n);
    for (size_t i = 0; i < n; ++i) {
      Status g(tsb_list_get(&list.get(), i, items[i].out()));
      EXPECT_EQ(g.get(), nullptr) << tsb_status_get_message(g.get());
    }
    return items;
  }
  // forward(*args, **kwargs) with the keyword arguments PyTorch was given
  // (none when `with_kwargs` is false).
  tsb_status* Call(std::vector<Value>& args, Value* out, bool with_kwargs = true) {
    return CallWith(module_, args, out, with_kwargs);
  }
  tsb_status* CallWith(tsb_module* m, std::vector<Value>& args, Value* out, bool with_kwargs) {
    std::vector<tsb_any> raw;
    for (Value& v : args) raw.push_back(v.get());
    const char* names[] = {"scale", "span", "steps"};
    std::vector<Value> values;
    std::vector<tsb_any> kw;
    for (const char* name : names) {
      values.push_back(Get(Get(io_, "kwargs"), name));
      kw.push_back(values.back().get());
    }
    return tsb_module_call(m, "forward",
                           CallArgs(raw.data(), raw.size(), names, kw.data(),
                                    with_kwargs ? kw.size() : 0).get(),
                           out->out());
  }

  tsb_module* module_ = nullptr;
  Value io_;
};

TEST_F(AotiPackageTest, ReturnsWhatPyTorchsOwnCallerReturns) {
  std::vector<Value> args = Items(Get(io_, "args"));
  ASSERT_EQ(args.size(), 6u);
  Value out;
  TSB_ASSERT_OK(Call(args, &out));
  // The same kernels on the same inputs: equal JSON, every bit of every
  // float (the namedtuple crosses as a tuple: no plugin names tsbtest.Box).
  EXPECT_EQ(out.ToJson(), Get(io_, "out").ToJson());
  EXPECT_THAT(out.ToJson(), HasSubstr("\"none\":null"));
  EXPECT_THAT(out.ToJson(), HasSubstr("\"dtype\":\"float64\""));
  EXPECT_THAT(out.ToJson(), HasSubstr("\"steps\":{\"dtype\":\"int64\",\"shape\":[3],\"data\":[2,4,6]}"));
}

TEST_F(AotiPackageTest, TheSpecIsTheSignature) {
  size_t n = 0;
  TSB_ASSERT_OK(tsb_module_count_methods(module_, &n));
  ASSERT_EQ(n, 1u);
  tsb_schema_info info{};
  info.struct_size = sizeof(info);
  TSB_ASSERT_OK(tsb_module_get_method(module_, 0, &info));
  EXPECT_STREQ(info.name, "forward");
  EXPECT_EQ(std::string(info.schema),
            "forward(Tensor arg0, (Tensor, Tensor) arg1, Tensor[] arg2, Dict(str, Tensor) arg3, "
            "(Tensor, Tensor) arg4, Any arg5, *, Tensor scale, (Tensor, Tensor) span, "
            "Tensor steps) -> Dict(str, Any)");
  ASSERT_EQ(info.num_arguments, 9u);
  EXPECT_TRUE(tsb_schema_get_argument(&info, 6)->kwarg_only);
  EXPECT_STREQ(tsb_schema_get_argument(&info, 6)->annotation, "Tensor");
}

TEST_F(AotiPackageTest, WrongShapesAreRefusedWithPaths) {
  std::vector<Value> args = Items(Get(io_, "args"));
  Value out;
  // A list one item longer than exported: items = [a, b, a].
  std::vector<Value> items = Items(args[2]);
  tsb_any three[] = {items[0].get(), items[1].get(), items[0].get()};
  Value longer;
  TSB_ASSERT_OK(tsb_list_new(TSB_TYPE_TENSOR, three, 3, longer.out()));
  std::vector<Value> edited = args;
  edited[2] = longer;
  EXPECT_EQ(Message(Call(edited, &out)),
            "forward(): argument 'arg2': expected a list of 2 items (the length it was exported "
            "with), got 3");
  // A dict without "v", and one with an extra key.
  Value u = Get(args[3], "u");
  Value ku = Value::Str("u"), kv = Value::Str("v"), kw = Value::Str("w");
  tsb_any one_key[] = {ku.get()};
  tsb_any one_value[] = {u.get()};
  Value missing;
  TSB_ASSERT_OK(tsb_dict_new(TSB_TYPE_STR, TSB_TYPE_TENSOR, one_key, one_value, 1, missing.out()));
  edited = args;
  edited[3] = missing;
  EXPECT_EQ(Message(Call(edited, &out)), "forward(): argument 'arg3' → key \"v\": missing");
  tsb_any three_keys[] = {ku.get(), kv.get(), kw.get()};
  tsb_any three_values[] = {u.get(), u.get(), u.get()};
  Value extra;
  TSB_ASSERT_OK(tsb_dict_new(TSB_TYPE_STR, TSB_TYPE_TENSOR, three_keys, three_values, 3, extra.out()));
  edited[3] = extra;
  EXPECT_EQ(Message(Call(edited, &out)),
            "forward(): argument 'arg3' → key \"w\": not a key the program was exported with");
  // An int where a tensor leaf is.
  edited = args;
  edited[0] = Value::Int(3);
  EXPECT_THAT(Message(Call(edited, &out)),
              HasSubstr("argument 'arg0': expected Tensor, got int 3"));
  EXPECT_EQ(Message(Call(args, &out, /*with_kwargs=*/false)),
            "forward(): missing argument 'scale'");
  // The None leaf was specialised at export: PyTorch ignores what is there.
  edited = args;
  edited[5] = Value::Int(7);
  TSB_EXPECT_OK(Call(edited, &out));
}

TEST_F(AotiPackageTest, WhatOnlyTorchScriptModulesHaveIsAClearError) {
  size_t n = 1;
  TSB_EXPECT_OK(tsb_module_count_parameters(module_, &n));
  EXPECT_EQ(n, 0u);
  char* code = nullptr;
  EXPECT_THAT(Message(tsb_module_get_code(module_, &code)),
              HasSubstr("an AOTInductor package (.pt2) has no TorchScript code"));
  EXPECT_THAT(Message(tsb_module_set_training(module_, true)),
              HasSubstr("has no training mode"));
  TSB_EXPECT_OK(tsb_module_set_training(module_, false));
  EXPECT_THAT(Message(tsb_module_save(module_, "x.pt")),
              HasSubstr("not by tsb_module_save"));
  Value out;
  EXPECT_EQ(Message(tsb_module_call(module_, "other", CallArgs(nullptr, 0).get(), out.out())),
            "no method 'other' in the package; its models: forward");
}

TEST_F(AotiPackageTest, APluginsRecordNamesTheNamedtuple) {
  // Loaded after SetUp's package: the types are chosen at load, so only a
  // package loaded from now on sees the record.
  Status loaded(tsb_plugin_load(BuildPath("TSB_EXPORT_BOX_PLUGIN"), nullptr));
  ASSERT_EQ(loaded.get(), nullptr) << tsb_status_get_message(loaded.get());
  tsb_module* m = nullptr;
  TSB_ASSERT_OK(tsb_module_load(Fixture("nested.pt2").c_str(), &m));
  tsb_schema_info info{};
  info.struct_size = sizeof(info);
  TSB_EXPECT_OK(tsb_module_get_method(m, 0, &info));
  EXPECT_STREQ(tsb_schema_get_argument(&info, 4)->annotation, "tsbtest.Box");
  // Built from a plain tuple by its type, and read back by field name.
  std::vector<Value> args = Items(Get(io_, "args"));
  Value out, box, hi;
  TSB_EXPECT_OK(CallWith(m, args, &out, true));
  Value box_key = Value::Str("box");
  TSB_EXPECT_OK(tsb_dict_get(&out.get(), &box_key.get(), box.out()));
  TSB_EXPECT_OK(tsb_any_get_field(&box.get(), "hi", hi.out()));
  EXPECT_EQ(hi.get().type_index, TSB_TYPE_TENSOR);
  tsb_module_free(m);
}

TEST_F(AotiPackageLoadTest, EachModelOfAPackageIsAMethod) {
  tsb_module* m = nullptr;
  TSB_ASSERT_OK(tsb_module_load(Fixture("two_models.pt2").c_str(), &m));
  size_t n = 0;
  TSB_EXPECT_OK(tsb_module_count_methods(m, &n));
  EXPECT_EQ(n, 2u);
  Value x = Value::FromJson(R"({"dtype": "float32", "shape": [2], "data": [1.5, -2]})",
                            TSB_TYPE_TENSOR);
  Value out;
  TSB_EXPECT_OK(tsb_module_call(m, "twice", CallArgs(&x.get(), 1).get(), out.out()));
  EXPECT_EQ(out.ToJson(), R"({"dtype":"float32","shape":[2],"data":[3.0,-4.0]})");
  EXPECT_EQ(Message(tsb_module_call(m, "thrice", CallArgs(&x.get(), 1).get(), out.out())),
            "no method 'thrice' in the package; its models: forward, twice");
  tsb_module_free(m);
}

TEST_F(AotiPackageLoadTest, ExportedProgramsAndOtherFilesAreRefused) {
  tsb_module* m = nullptr;
  EXPECT_THAT(Message(tsb_module_load(Fixture("program.pt2").c_str(), &m)),
              HasSubstr("it is a torch.export.save archive of an ExportedProgram"));
  std::string path = ::testing::TempDir() + "/not_a_zip.pt2";
  std::ofstream(path) << "not a zip";
  EXPECT_THAT(Message(tsb_module_load(path.c_str(), &m)), HasSubstr("not a .pt2 package"));
  EXPECT_EQ(m, nullptr);
  std::remove(path.c_str());
}

#endif

}  // namespace
}  // namespace tsb::testing
