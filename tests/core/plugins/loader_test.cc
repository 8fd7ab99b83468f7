// The plugin loader: good plugins, each kind of malformed plugin, functions.
#include <dlfcn.h>
#include <stdlib.h>

#include <string>
#include <vector>

#include "core/compat/torch_compat.h"
#include "core/types/type_registry.h"
#include "tests/core/plugins/fixtures/other_torch.h"
#include "tsbridge/plugin/internal/platform_tag.hpp"
#include "tests/testing/abi_test.h"
#include "tests/testing/build_paths.h"

namespace tsb::testing {
namespace {

std::string Fixture(const char* name) {
  return std::string(BuildPath("TSB_FIXTURE_DIR")) + "/" + name + "/libfixture_" + name + ".so";
}

// Loads `name`, expects failure with `code` and a message containing `words`,
// and checks that nothing was registered.
void ExpectRefused(const char* name, tsb_code code, const std::string& words) {
  size_t before = ::tsb::PluginCount();
  int32_t id = -5;
  Status s(tsb_plugin_load(Fixture(name).c_str(), &id));
  ASSERT_NE(s.get(), nullptr) << name << " loaded";
  EXPECT_EQ(tsb_status_get_code(s.get()), code) << tsb_status_get_message(s.get());
  EXPECT_NE(std::string(tsb_status_get_message(s.get())).find(words), std::string::npos)
      << name << ": " << tsb_status_get_message(s.get());
  EXPECT_EQ(id, -5);
  EXPECT_EQ(::tsb::PluginCount(), before) << name;
}

TEST(PluginLoaderTest, NotASharedLibrary) {
  ExpectRefused("not_a_library", TSB_ERR_INVALID_ARGUMENT, "invalid ELF header");
}

TEST(PluginLoaderTest, MissingFile) {
  ExpectRefused("no_such_plugin", TSB_ERR_NOT_FOUND, "no such file");
}

TEST(PluginLoaderTest, MissingEntrySymbol) {
  ExpectRefused("no_entry", TSB_ERR_INVALID_ARGUMENT,
                "does not export tsb_plugin_v1, so it is not a tsbridge plugin");
}

TEST(PluginLoaderTest, DifferentAbiMajor) {
  ExpectRefused("abi_major", TSB_ERR_UNSUPPORTED, "built for plugin ABI 2.0, this tsbridge speaks 1.1");
}

TEST(PluginLoaderTest, NewerAbiMinor) {
  ExpectRefused("abi_minor", TSB_ERR_UNSUPPORTED,
                "built for plugin ABI 1.2, this tsbridge speaks 1.1 (older minors only)");
}

// Each part of the tag that differs is named on both sides, then both tags.
TEST(PluginLoaderTest, PlatformTagMismatch) {
  ExpectRefused("platform", TSB_ERR_UNSUPPORTED,
                "built against _GLIBCXX_USE_CXX11_ABI=0 and LibTorch 1.12 and the tsbridge SDK "
                "ABI 1, this tsbridge against _GLIBCXX_USE_CXX11_ABI=1 and LibTorch " +
                    compat::LibTorchRelease() + " and the tsbridge SDK ABI " +
                    std::to_string(TSB_SDK_ABI_VERSION) +
                    " (platform \"gnu/libstdc++/cxx11abi=0/torch=1.12\", this tsbridge's \"gnu/");
}

// A plugin of the same SDK built against another LibTorch release names
// both releases (docs/install.md, "When versions clash").
TEST(PluginLoaderTest, OtherLibTorch) {
  const std::string ours = compat::LibTorchRelease();
  ExpectRefused("other_torch", TSB_ERR_UNSUPPORTED,
                "built against LibTorch " TSB_FIXTURE_OTHER_TORCH ", this tsbridge against LibTorch " +
                    ours + " (platform \"" + TSB_PLATFORM_COMPILER_ "/" TSB_PLATFORM_STDLIB_
                    "/cxx11abi=" TSB_PLATFORM_CXX11_ABI_ "/torch=" TSB_FIXTURE_OTHER_TORCH "/sdk=" +
                    std::to_string(TSB_SDK_ABI_VERSION) + "\", this tsbridge's \"" +
                    TSB_PLATFORM_TAG + "\"): rebuild the plugin against this tsbridge and LibTorch " +
                    ours);
}

// A plugin built against an older SDK (its C++ types may differ in shape)
// is refused with a status naming the SDK, before any of its code runs.
TEST(PluginLoaderTest, OlderSdkAbi) {
  ExpectRefused("old_sdk", TSB_ERR_UNSUPPORTED,
                "built against the tsbridge SDK ABI 1 (the C++ types shared with plugins: "
                "KindCodec, TypeInfo), this tsbridge needs SDK ABI 3: rebuild the plugin");
}

TEST(PluginLoaderTest, RegisterThrows) {
  ExpectRefused("register_throws", TSB_ERR_INTERNAL, "register threw: boom in register");
}

TEST(PluginLoaderTest, FailingHalfwayLeavesNothingBehind) {
  ExpectRefused("fails_halfway", TSB_ERR_INTERNAL, "gave up halfway");
  EXPECT_EQ(TypeRegistry::Global().CodecFor(c10::TypeKind::StorageType), nullptr);
  EXPECT_EQ(TypeRegistry::Global().FindNamedType("fixture.halfway"), nullptr);
  tsb_schema_info schema_info{};
    schema_info.struct_size = sizeof(schema_info);
    const char*& schema = schema_info.schema;
  Status f(tsb_function_get_schema("fixture::halfway", &schema_info));
  EXPECT_EQ(tsb_status_get_code(f.get()), TSB_ERR_NOT_FOUND);
}

// A refused plugin's library stays mapped: the sparse plugin registers
// operators and a class with LibTorch when it is opened, and is refused here
// (its schemas need Optional, whose plugin is not loaded). Closed, LibTorch's
// class table would point into unmapped code, and this process (one per
// test) would crash at exit.
TEST(PluginLoaderTest, ARefusedPluginThatRegisteredWithLibTorchStaysMapped) {
  const char* sparse = BuildPath("TSB_SPARSE_PLUGIN");
  Status s(tsb_plugin_load(sparse, nullptr));
  ASSERT_NE(s.get(), nullptr) << "the sparse plugin loaded without Optional's codec";
  EXPECT_NE(std::string(tsb_status_get_message(s.get())).find("no codec for Optional"),
            std::string::npos)
      << tsb_status_get_message(s.get());
  void* library = dlopen(sparse, RTLD_NOW | RTLD_NOLOAD);
  EXPECT_NE(library, nullptr) << "the refused plugin was closed";
  if (library != nullptr) dlclose(library);  // the reference NOLOAD took
}

TEST(PluginLoaderTest, DuplicateTypeInsideOnePlugin) {
  ExpectRefused("duplicate_in_plugin", TSB_ERR_ALREADY_EXISTS,
                "the plugin registers type 'fixture.twice' twice");
}

TEST(PluginLoaderTest, InvalidTypeString) {
  ExpectRefused("invalid_type", TSB_ERR_INVALID_ARGUMENT,
                "type 'fixture.bad': invalid TorchScript type \"Tuple[Tensor, Foo]\": Unknown type name 'Foo'");
}

class GoodPluginTest : public AbiTest {
 protected:
  static void SetUpTestSuite() {
    Status s(tsb_plugin_load(Fixture("good").c_str(), &id_));
    ASSERT_EQ(s.get(), nullptr) << tsb_status_get_message(s.get());
  }
  static int32_t id_;
};
int32_t GoodPluginTest::id_ = -1;

TEST_F(GoodPluginTest, InfoListsWhatItRegistered) {
  tsb_plugin_info info{};
  info.struct_size = sizeof(info);
  TSB_ASSERT_OK(tsb_plugin_get_info(id_, &info));
  EXPECT_STREQ(info.name, "good");
  EXPECT_STREQ(info.version, "1.0");
  EXPECT_EQ(std::string(info.path), Fixture("good"));
  ASSERT_EQ(info.num_kinds, 1u);
  EXPECT_STREQ(info.kinds[0], "Storage");
  ASSERT_EQ(info.num_types, 2u);
  EXPECT_STREQ(info.types[0], "fixture.point");
  ASSERT_EQ(info.num_functions, 4u);
  EXPECT_STREQ(info.functions[0], "fixture::add");
  Status missing(tsb_plugin_get_info(999, &info));
  EXPECT_EQ(tsb_status_get_code(missing.get()), TSB_ERR_NOT_FOUND);
}

TEST_F(GoodPluginTest, LoadingTwiceReturnsTheLoadedPlugin) {
  int32_t again = -1;
  size_t count = ::tsb::PluginCount();
  TSB_ASSERT_OK(tsb_plugin_load(Fixture("good").c_str(), &again));
  EXPECT_EQ(again, id_);
  EXPECT_EQ(::tsb::PluginCount(), count);
}

TEST_F(GoodPluginTest, DuplicateTypeAcrossPlugins) {
  ExpectRefused("duplicate_across", TSB_ERR_ALREADY_EXISTS,
                "type 'fixture.shared' is already registered");
}

TEST_F(GoodPluginTest, FunctionsAreCallableByName) {
  tsb_schema_info schema_info{};
    schema_info.struct_size = sizeof(schema_info);
    const char*& schema = schema_info.schema;
  TSB_ASSERT_OK(tsb_function_get_schema("fixture::add", &schema_info));
  EXPECT_STREQ(schema, "fixture::add(int a, int b) -> int");
  tsb_any args[] = {tsb_any_int(2), tsb_any_int(40)};
  Value sum;
  TSB_ASSERT_OK(tsb_function_call("fixture::add", ::tsb::CallArgs(args, 2).get(), sum.out()));
  EXPECT_EQ(sum.get().type_index, TSB_TYPE_INT);
  EXPECT_EQ(sum.get().u.i, 42);
}

TEST_F(GoodPluginTest, FunctionErrorsNameTheFunction) {
  Value out;
  tsb_any bad[] = {tsb_any_int(2), tsb_any_borrowed_str("x")};
  Status wrong(tsb_function_call("fixture::add", ::tsb::CallArgs(bad, 2).get(), out.out()));
  EXPECT_EQ(tsb_status_get_code(wrong.get()), TSB_ERR_TYPE);
  EXPECT_STREQ(tsb_status_get_message(wrong.get()),
               "fixture::add(): argument 'b': expected int, got str \"x\"");
  EXPECT_STREQ(tsb_status_get_path(wrong.get()), "fixture::add(): argument 'b'");
  Status arity(tsb_function_call("fixture::add", ::tsb::CallArgs(bad, 1).get(), out.out()));
  // Issue 11, point 6: the missing argument is named (was "expected 2 arguments, got 1").
  EXPECT_STREQ(tsb_status_get_message(arity.get()), "fixture::add(): missing argument 'b'");
  ExpectMessage(tsb_function_call("fixture::fail", nullptr, out.out()), TSB_ERR_INVALID_ARGUMENT,
                "fixture::fail(): it failed");
  ExpectMessage(tsb_function_call("fixture::throw", nullptr, out.out()), TSB_ERR_INTERNAL,
                "fixture::throw(): boom");
  Status unknown(tsb_function_call("fixture::nope", nullptr, out.out()));
  EXPECT_STREQ(tsb_status_get_message(unknown.get()),
               "no function named 'fixture::nope' (functions come from loaded plugins)");
}

// tsb_function_call looks the name up once: a plugin function first, then
// an operator of that name, then the same errors as before.
TEST_F(GoodPluginTest, FunctionCallFallsBackToOperators) {
  tsb_any args[] = {tsb_any_int(6), tsb_any_int(7)};
  Value product;
  TSB_ASSERT_OK(tsb_function_call("aten::mul", ::tsb::CallArgs(args, 2).get(), product.out()));
  EXPECT_EQ(product.get().type_index, TSB_TYPE_INT);
  EXPECT_EQ(product.get().u.i, 42);
  Value sum;
  TSB_ASSERT_OK(tsb_function_call("fixture::add", ::tsb::CallArgs(args, 2).get(), sum.out()));
  EXPECT_EQ(sum.get().u.i, 13);
  Value out;
  ExpectMessage(tsb_function_call(nullptr, ::tsb::CallArgs(args, 2).get(), out.out()),
                TSB_ERR_INVALID_ARGUMENT, "argument 'name' is NULL");
  Status unknown(tsb_function_call("fixture_ops::nope", nullptr, out.out()));
  EXPECT_STREQ(tsb_status_get_message(unknown.get()),
               "no function named 'fixture_ops::nope' (functions come from loaded plugins)");
}

TEST_F(GoodPluginTest, NamedTypesParseByName) {
  int32_t index = 0;
  Status s(tsb_type_parse("List[fixture.point]", &index));
  // The type is known by name; using it needs the tuple plugin's codec.
  EXPECT_EQ(tsb_status_get_code(s.get()), TSB_ERR_UNSUPPORTED) << tsb_status_get_message(s.get());
  EXPECT_STREQ(tsb_status_get_message(s.get()),
               "no codec for fixture.point: load the tuple plugin (plugins/tuple)");
}

TEST(BundledPluginsTest, LoadFromNextToTheLibrary) {
  TSB_ASSERT_OK(tsb_plugin_load_bundled());
  std::vector<std::string> names;
  for (int32_t id = 0; id < static_cast<int32_t>(::tsb::PluginCount()); ++id) {
    tsb_plugin_info info{};
    info.struct_size = sizeof(info);
    TSB_ASSERT_OK(tsb_plugin_get_info(id, &info));
    names.emplace_back(info.name);
    EXPECT_EQ(std::string(info.path).rfind(::tsb::BundledPluginDir(), 0), 0u) << info.path;
  }
  // The index's order (plugins/CMakeLists.txt): kind codecs first.
  EXPECT_EQ(names, (std::vector<std::string>{"tuple", "optional", "sparse"}));
  int32_t index = 0;
  TSB_EXPECT_OK(tsb_type_parse("Tuple[int, Optional[str]]", &index));
  TSB_EXPECT_OK(tsb_plugin_load_bundled());  // again: a no-op
  EXPECT_EQ(::tsb::PluginCount(), 3);
}

TEST(BundledPluginsTest, LibTorchAssertionsReadAsReasons) {
  TSB_ASSERT_OK(tsb_plugin_load_bundled());
  int32_t index = 0;
  Status s(tsb_type_parse("Union[int]", &index));
  EXPECT_EQ(std::string(tsb_status_get_message(s.get())).rfind(
                "invalid TorchScript type \"Union[int]\": After type unification was performed", 0),
            0u)
      << tsb_status_get_message(s.get());
}

// The no-escape guarantee, from the plugin side: a codec that throws from
// every callback (std::exception, c10::Error, even a thrown int) and a
// function that throws. The host sees statuses, and the process lives.
TEST(ThrowingPluginTest, HostOnlySeesStatuses) {
  TSB_ASSERT_OK(tsb_plugin_load(Fixture("throwing").c_str(), nullptr));
  tsb_any items[] = {tsb_any_int(1), tsb_any_int(2)};
  tsb_any out = tsb_any_none();
  Status encode(tsb_tuple_new(items, 2, &out));
  EXPECT_EQ(tsb_status_get_code(encode.get()), TSB_ERR_INTERNAL);
  EXPECT_STREQ(tsb_status_get_message(encode.get()), "boom in Encode");
  int32_t pair = 0;
  TSB_ASSERT_OK(tsb_type_parse("Tuple[int, int]", &pair));
  Value list;
  TSB_ASSERT_OK(tsb_list_new(TSB_TYPE_ANY, items, 2, list.out()));
  Status coerce(tsb_any_coerce(&list.get(), pair, &out));
  EXPECT_STREQ(tsb_status_get_message(coerce.get()), "unknown C++ exception");
  Status call(tsb_function_call("throwing::fn", nullptr, &out));
  EXPECT_STREQ(tsb_status_get_message(call.get()), "throwing::fn(): boom");
  // A forged tuple value reaches Decode.
  tsb_any forged = tsb_any_inline(pair, 0);
  Status decode(tsb_any_coerce(&forged, pair, &out));
  EXPECT_EQ(tsb_status_get_code(decode.get()), TSB_ERR_TORCH);
  EXPECT_STREQ(tsb_status_get_message(decode.get()), "boom in Decode");
  EXPECT_EQ(out.type_index, TSB_TYPE_NONE) << "out untouched by every failure";
}

TEST(PluginPathTest, LoadsFilesAndDirectoriesFromTheEnvironment) {
  std::string dir = std::string(BuildPath("TSB_FIXTURE_DIR")) + "/env_dir";
  std::string path = "::" + dir + ":" + Fixture("good");
  setenv("TSB_PLUGIN_PATH", path.c_str(), 1);
  TSB_EXPECT_OK(tsb_plugin_load_from_env());
  int found = 0;
  for (int32_t id = 0; id < static_cast<int32_t>(::tsb::PluginCount()); ++id) {
    tsb_plugin_info info{};
    info.struct_size = sizeof(info);
    TSB_ASSERT_OK(tsb_plugin_get_info(id, &info));
    found += std::string(info.name) == "env_dir" || std::string(info.name) == "good";
  }
  EXPECT_EQ(found, 2);
  setenv("TSB_PLUGIN_PATH", "/nonexistent/plugin.so", 1);
  Status missing(tsb_plugin_load_from_env());
  EXPECT_EQ(tsb_status_get_code(missing.get()), TSB_ERR_NOT_FOUND);
  unsetenv("TSB_PLUGIN_PATH");
  TSB_EXPECT_OK(tsb_plugin_load_from_env());
}

}  // namespace
}  // namespace tsb::testing
