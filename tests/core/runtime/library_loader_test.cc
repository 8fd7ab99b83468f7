// Operator libraries: tsb_library_load by path and by name, twice, refused
// files, TSB_LIBRARY_PATH, and the error for a module calling an operator
// nobody registered. Each test runs in its own process (tsb_add_gtest PROCESS_PER_TEST),
// so each starts with nothing loaded.
#include <dlfcn.h>
#include <stdlib.h>

#include <string>

#include "tests/testing/abi_test.h"
#include "tests/testing/build_paths.h"

namespace tsb::testing {
namespace {

constexpr const char* kCallsTwice =
    "def forward(self, x: Tensor) -> Tensor:\n"
    "    return ops.tsbfixture.twice(x)\n";

size_t LibraryCount() {
  size_t n = 0;
  Status s(tsb_library_count(&n));
  EXPECT_EQ(s.get(), nullptr);
  return n;
}

std::string Message(tsb_status* status) {
  Status s(status);
  return s.ok() ? "(ok)" : tsb_status_get_message(s.get());
}

TEST(LibraryLoaderTest, ModuleCallingAnUnregisteredOperatorNamesIt) {
  tsb_module* module = nullptr;
  std::string message = Message(tsb_module_compile(kCallsTwice, &module));
  EXPECT_EQ(module, nullptr);
  // Said in C's words; each other host says its own call (SayLoadLibrary).
  EXPECT_EQ(message,
            "the source calls the operator tsbfixture::twice, which is not registered: load "
            "the library that registers the tsbfixture:: operators first "
            "(tsb_library_load(\"PATH.so\", NULL))");
}

TEST(LibraryLoaderTest, TorchvisionNamespaceNamesTheLibrary) {
  tsb_any out{};
  std::string message = Message(tsb_op_call("torchvision::no_such_op", nullptr, &out));
  EXPECT_EQ(message,
            "no operator named torchvision::no_such_op: load the operator library "
            "'torchvision' first (tsb_library_load(\"torchvision\", NULL))");
}

TEST(LibraryLoaderTest, LoadsByPathAndRegistersItsOperators) {
  int32_t id = -1;
  TSB_ASSERT_OK(tsb_library_load(BuildPath("TSB_OPLIB_FIXTURE"), &id));
  EXPECT_EQ(id, 0);
  tsb_library_info info{};
  info.struct_size = sizeof(info);
  TSB_ASSERT_OK(tsb_library_get_info(id, &info));
  EXPECT_STREQ(info.name, "libfixture_oplib");
  ASSERT_EQ(info.num_operators, 1u);
  EXPECT_STREQ(info.operators[0], "tsbfixture::twice");

  // The module that could not compile before now runs.
  tsb_module* module = nullptr;
  TSB_ASSERT_OK(tsb_module_compile(kCallsTwice, &module));
  Value tensor, result;
  TSB_ASSERT_OK(tsb_json_read(R"({"dtype": "float32", "shape": [2], "data": [1.5, -2]})",
                              TSB_TYPE_TENSOR, tensor.out()));
  tsb_call_args args = tsb_call_args_make(&tensor.get(), 1);
  TSB_ASSERT_OK(tsb_module_call(module, "forward", &args, result.out()));
  char* json = nullptr;
  TSB_ASSERT_OK(tsb_json_write(&result.get(), &json));
  EXPECT_NE(std::string(json).find("\"data\":[3.0,-4.0]"), std::string::npos) << json;
  tsb_string_free(json);
  tsb_module_free(module);
}

TEST(LibraryLoaderTest, LoadingTwiceIsANoOp) {
  int32_t first = -1, second = -1;
  TSB_ASSERT_OK(tsb_library_load(BuildPath("TSB_OPLIB_FIXTURE"), &first));
  TSB_ASSERT_OK(tsb_library_load(BuildPath("TSB_OPLIB_FIXTURE"), &second));
  EXPECT_EQ(first, second);
  EXPECT_EQ(LibraryCount(), 1u);
}

TEST(LibraryLoaderTest, NotASharedLibraryChangesNothing) {
  int32_t id = -5;
  std::string message = Message(tsb_library_load(BuildPath("TSB_NOT_A_LIBRARY"), &id));
  EXPECT_NE(message.find(std::string("cannot load operator library '") +
                         BuildPath("TSB_NOT_A_LIBRARY") + "': "),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("invalid ELF header"), std::string::npos) << message;
  EXPECT_EQ(id, -5);
  EXPECT_EQ(LibraryCount(), 0u);
}

// A plugin given as an operator library is refused, and stays mapped: the
// sparse plugin registered operators and a class with LibTorch when it was
// opened. Closed, this process (one per test) would crash at exit.
TEST(LibraryLoaderTest, APluginIsRefusedAndStaysMapped) {
  const char* sparse = BuildPath("TSB_SPARSE_PLUGIN");
  int32_t id = -1;
  std::string message = Message(tsb_library_load(sparse, &id));
  EXPECT_NE(message.find("it is a tsbridge plugin"), std::string::npos) << message;
  void* library = dlopen(sparse, RTLD_NOW | RTLD_NOLOAD);
  EXPECT_NE(library, nullptr) << "the refused plugin was closed";
  if (library != nullptr) dlclose(library);  // the reference NOLOAD took
}

TEST(LibraryLoaderTest, MissingFile) {
  EXPECT_EQ(Message(tsb_library_load("/nonexistent/libops.so", nullptr)),
            "cannot load operator library '/nonexistent/libops.so': no such file");
  EXPECT_EQ(LibraryCount(), 0u);
}

TEST(LibraryLoaderTest, NameNotFoundSaysWhereItLooked) {
  setenv("TSB_LIBRARY_SEARCH_PATH", "/nonexistent/a:/nonexistent/b", 1);
  std::string message = Message(tsb_library_load("torchvisoin", nullptr));
  EXPECT_NE(message.find("cannot find the operator library 'torchvisoin': looked for "
                         "/nonexistent/a/torchvisoin/_C*.so, "
                         "/nonexistent/a/torchvisoin/lib/libtorchvisoin*.so, "
                         "/nonexistent/b/torchvisoin/_C*.so, "
                         "/nonexistent/b/torchvisoin/lib/libtorchvisoin*.so (install it"),
            std::string::npos)
      << message;
  EXPECT_EQ(LibraryCount(), 0u);
}

// The rule, on packages laid out as torchvision's and torchaudio's are: the
// fixture library copied into <dir>/visionlike/_C.cpython-311-x86_64-linux-gnu.so
// and <dir>/audiolike/lib/libaudiolike.so, each found by its package's name.
TEST(LibraryLoaderTest, ANameIsFoundByEitherConvention) {
  const std::string dir = ::testing::TempDir() + "/library_rule";
  const std::string oplib = BuildPath("TSB_OPLIB_FIXTURE");
  for (const std::string& file : {dir + "/visionlike/_C.cpython-311-x86_64-linux-gnu.so",
                                  dir + "/audiolike/lib/libaudiolike.so"}) {
    ASSERT_EQ(system(("mkdir -p $(dirname " + file + ") && cp " + oplib + " " + file).c_str()),
              0);
  }
  setenv("TSB_LIBRARY_SEARCH_PATH", dir.c_str(), 1);
  for (const char* name : {"visionlike", "audiolike"}) {
    int32_t id = -1;
    TSB_ASSERT_OK(tsb_library_load(name, &id));
    tsb_library_info info{};
    info.struct_size = sizeof(info);
    TSB_ASSERT_OK(tsb_library_get_info(id, &info));
    EXPECT_STREQ(info.name, "visionlike");  // a copy is the library loaded first
  }
  EXPECT_EQ(LibraryCount(), 1u);
  // A namespace named after a library found by name names it.
  tsb_any out{};
  EXPECT_EQ(Message(tsb_op_call("audiolike::op", nullptr, &out)),
            "no operator named audiolike::op: load the operator library 'audiolike' first "
            "(tsb_library_load(\"audiolike\", NULL))");
}

TEST(LibraryLoaderTest, FromEnvironment) {
  setenv(
      "TSB_LIBRARY_PATH",
      (std::string(BuildPath("TSB_OPLIB_FIXTURE")) + ":" + BuildPath("TSB_OPLIB_FIXTURE")).c_str(),
      1);
  TSB_ASSERT_OK(tsb_library_load_from_env());
  EXPECT_EQ(LibraryCount(), 1u);
  setenv("TSB_LIBRARY_PATH", "/nonexistent/libops.so", 1);
  EXPECT_EQ(Message(tsb_library_load_from_env()),
            "TSB_LIBRARY_PATH: cannot load operator library '/nonexistent/libops.so': no such "
            "file");
}

TEST(LibraryLoaderTest, TorchvisionByName) {
  int32_t id = -1;
  Status s(tsb_library_load("torchvision", &id));
  if (!s.ok() &&
      std::string(tsb_status_get_message(s.get())).find("cannot find") != std::string::npos) {
    GTEST_SKIP() << "python3-torchvision is not installed: " << tsb_status_get_message(s.get());
  }
  ASSERT_EQ(s.get(), nullptr) << tsb_status_get_message(s.get());
  size_t overloads = 0;
  TSB_ASSERT_OK(tsb_op_count_overloads("torchvision::nms", &overloads));
  EXPECT_EQ(overloads, 1u);
  TSB_ASSERT_OK(tsb_op_count_overloads("image::decode_jpeg", &overloads));
  EXPECT_EQ(LibraryCount(), 2u);  // _C and image
  TSB_ASSERT_OK(tsb_library_load("torchvision", nullptr));
  EXPECT_EQ(LibraryCount(), 2u);
}

}  // namespace
}  // namespace tsb::testing
