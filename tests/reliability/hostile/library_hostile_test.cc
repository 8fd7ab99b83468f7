// Hostile operator libraries at tsb_library_load (docs/reliability.md,
// "Hostile inputs"): every kind of file the plugin loader refuses, now given
// to the operator-library loader. The malformed files are made here, at test
// time, from the fixture library the build made (tests/core/runtime/library.cmake):
// emptied, truncated, its ELF header changed to another class, byte order or
// machine; besides those, a text file, a directory, a missing file, a library
// with a symbol nothing defines (one built against another LibTorch) and a
// tsbridge plugin. Each must be refused with a status naming the file and
// the reason, nothing may be left registered, and afterwards the good
// library still loads and its operator runs. A truncated file used to crash
// dlopen itself (SIGBUS), for plugins too; a copy of a loaded library used
// to abort the process (its TORCH_LIBRARY ran twice).
#include <elf.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "tests/testing/build_paths.h"
#include "tsbridge/tsbridge.h"

using tsb::testing::BuildPath;

namespace {

namespace fs = std::filesystem;

std::string Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// `bytes` written to a fresh file named `name` in the test's temp dir.
std::string Write(const std::string& name, const std::string& bytes) {
  fs::path dir = fs::path(::testing::TempDir()) / "tsb_hostile_libraries";
  fs::create_directories(dir);
  std::string path = (dir / name).string();
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  return path;
}

// The fixture library with the ELF header bytes at `offset` replaced.
std::string Patched(const std::string& name, size_t offset, const std::string& with) {
  std::string bytes = Read(BuildPath("TSB_OPLIB_FIXTURE"));
  EXPECT_GT(bytes.size(), 64u);
  bytes.replace(offset, with.size(), with);
  return Write(name, bytes);
}

// The library cut in the middle of its last loaded segment (a plain half
// may keep every segment whole when debug sections fill the second half).
std::string CutInLastSegment(const std::string& bytes) {
  Elf64_Ehdr header;
  std::memcpy(&header, bytes.data(), sizeof header);
  uint64_t cut = bytes.size() / 2;
  for (int i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr ph;
    std::memcpy(&ph, bytes.data() + header.e_phoff + i * sizeof ph, sizeof ph);
    if (ph.p_type == PT_LOAD && ph.p_filesz > 0) cut = ph.p_offset + ph.p_filesz / 2;
  }
  return bytes.substr(0, cut);
}

size_t LibraryCount() {
  size_t n = 0;
  tsb_status* s = tsb_library_count(&n);
  EXPECT_EQ(s, nullptr);
  tsb_status_free(s);
  return n;
}

size_t OperatorOverloads(const char* name) {
  size_t n = 0;
  tsb_status* s = tsb_op_count_overloads(name, &n);
  tsb_status_free(s);  // an unknown operator is a status, and 0
  return s ? 0 : n;
}

// Loads `path`; expects a refusal whose message names the file and contains
// `why`, with no library and no operator left behind; then the process must
// still load the good library and run its operator.
void ExpectRefused(const std::string& path, const std::string& why) {
  const size_t before = LibraryCount();
  int32_t id = -7;
  tsb_status* s = tsb_library_load(path.c_str(), &id);
  ASSERT_NE(s, nullptr) << path << " loaded";
  std::string message = tsb_status_get_message(s);
  tsb_status_free(s);
  EXPECT_NE(message.find("'" + path + "'"), std::string::npos) << message;
  EXPECT_NE(message.find(why), std::string::npos) << message;
  EXPECT_EQ(id, -7);
  EXPECT_EQ(LibraryCount(), before);
  EXPECT_EQ(OperatorOverloads("tsbfixture::twice"), before == 0 ? 0u : 1u);

  tsb_status* good = tsb_library_load(BuildPath("TSB_OPLIB_FIXTURE"), nullptr);
  ASSERT_EQ(good, nullptr) << tsb_status_get_message(good);
  tsb_any x, out;
  ASSERT_EQ(tsb_json_read(R"({"dtype": "float32", "shape": [2], "data": [1.5, -2]})",
                          TSB_TYPE_TENSOR, &x),
            nullptr);
  tsb_call_args args = tsb_call_args_make(&x, 1);
  tsb_status* call = tsb_op_call("tsbfixture::twice", &args, &out);
  ASSERT_EQ(call, nullptr) << tsb_status_get_message(call);
  char* json = nullptr;
  ASSERT_EQ(tsb_json_write(&out, &json), nullptr);
  EXPECT_NE(std::string(json).find("[3.0,-4.0]"), std::string::npos) << json;
  tsb_string_free(json);
  tsb_any_release(&x);
  tsb_any_release(&out);
}

TEST(HostileLibraryTest, NotASharedLibrary) {
  ExpectRefused(BuildPath("TSB_NOT_A_LIBRARY"), "invalid ELF header");
}

TEST(HostileLibraryTest, EmptyFile) { ExpectRefused(Write("empty.so", ""), "file too short"); }

TEST(HostileLibraryTest, TruncatedToItsElfHeader) {
  ExpectRefused(Write("head.so", Read(BuildPath("TSB_OPLIB_FIXTURE")).substr(0, 64)),
                "truncated: the program headers end at byte");
}

TEST(HostileLibraryTest, TruncatedInASegment) {
  ExpectRefused(Write("half.so", CutInLastSegment(Read(BuildPath("TSB_OPLIB_FIXTURE")))),
                "truncated: segment");
}

TEST(HostileLibraryTest, WrongElfClass) {  // a 32-bit library
  ExpectRefused(Patched("class32.so", 4, "\x01"), "wrong ELF class: ELFCLASS32");
}

TEST(HostileLibraryTest, WrongByteOrder) {
  ExpectRefused(Patched("big_endian.so", 5, "\x02"), "wrong byte order");
}

TEST(HostileLibraryTest, WrongMachine) {  // e_machine = EM_AARCH64 (183)
  ExpectRefused(Patched("aarch64.so", 18, std::string("\xb7\x00", 2)),
                "built for another machine (ELF machine 183");
}

TEST(HostileLibraryTest, Directory) {
  std::string dir = Write("placeholder", "");
  dir = fs::path(dir).parent_path().string() + "/a_directory.so";
  fs::create_directories(dir);
  ExpectRefused(dir, "cannot load");
}

TEST(HostileLibraryTest, MissingFile) {
  ExpectRefused("/nonexistent/libops.so", "no such file");
}

TEST(HostileLibraryTest, UndefinedSymbol) {  // built against another LibTorch
  ExpectRefused(BuildPath("TSB_UNRESOLVED_LIBRARY"),
                "undefined symbol: tsb_hostile_symbol_nowhere");
}

TEST(HostileLibraryTest, ACopyOfALoadedLibraryIsThatLibrary) {
  int32_t first = -1, copy = -1;
  ASSERT_EQ(tsb_library_load(BuildPath("TSB_OPLIB_FIXTURE"), &first), nullptr);
  tsb_status* s =
      tsb_library_load(Write("copy.so", Read(BuildPath("TSB_OPLIB_FIXTURE"))).c_str(), &copy);
  ASSERT_EQ(s, nullptr) << tsb_status_get_message(s);
  EXPECT_EQ(copy, first);
  EXPECT_EQ(LibraryCount(), 1u);
}

// The plugin loader shares the check: a truncated plugin is refused too.
TEST(HostileLibraryTest, TruncatedPlugin) {
  std::string path =
      Write("half_plugin.so", CutInLastSegment(Read(BuildPath("TSB_PLUGIN_FIXTURE"))));
  int32_t id = -7;
  tsb_status* s = tsb_plugin_load(path.c_str(), &id);
  ASSERT_NE(s, nullptr);
  EXPECT_NE(std::string(tsb_status_get_message(s)).find("cannot load plugin '" + path +
                                                       "': truncated: segment"),
            std::string::npos)
      << tsb_status_get_message(s);
  tsb_status_free(s);
  EXPECT_EQ(id, -7);
  s = tsb_plugin_load(BuildPath("TSB_PLUGIN_FIXTURE"), nullptr);
  EXPECT_EQ(s, nullptr) << tsb_status_get_message(s);
  tsb_status_free(s);
}

TEST(HostileLibraryTest, ATsbridgePluginIsNotAnOperatorLibrary) {
  ExpectRefused(BuildPath("TSB_PLUGIN_FIXTURE"), "is a tsbridge plugin");
}

}  // namespace
