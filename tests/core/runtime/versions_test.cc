// Versions that clash, through the host ABI (docs/install.md, "When versions
// clash"): archives whose records say another PyTorch wrote them
// (tests/core/runtime/make_version_fixtures.py) are refused with messages
// that name both versions, from a file and from bytes; on LibTorch 2.6 and
// newer so is a .pt2 package compiled by another release. The plugin
// compiled against another LibTorch is tests/core/plugins/loader_test.cc's.
#include <caffe2/serialize/versions.h>

#include <fstream>
#include <iterator>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/compat/torch_compat.h"
#include "core/plugins/shared_object.h"
#include "tests/testing/abi_test.h"
#include "tests/testing/build_paths.h"
#include "tsbridge/tsbridge.h"

namespace tsb::testing {
namespace {

using ::testing::HasSubstr;

std::string Fixture(const char* name) {
  return std::string(BuildPath("TSB_VERSION_FIXTURES")) + "/" + name;
}

// The code and message of a load that must fail.
std::pair<tsb_code, std::string> Refusal(tsb_status* raw) {
  Status s(raw);
  if (s.get() == nullptr) return {TSB_OK, "OK"};
  return {tsb_status_get_code(s.get()), tsb_status_get_message(s.get())};
}

std::string Ours() { return compat::LibTorchRelease(); }

TEST(VersionsTest, TheCurrentArchiveLoads) {
  Module m;
  TSB_ASSERT_OK(tsb_module_load(Fixture("current.pt").c_str(), Out(m)));
}

TEST(VersionsTest, ANewerFileFormatNamesBothVersions) {
  const std::string path = Fixture("newer_format.pt");
  tsb_module* m = nullptr;
  auto [code, message] = Refusal(tsb_module_load(path.c_str(), &m));
  EXPECT_EQ(code, TSB_ERR_UNSUPPORTED);
  EXPECT_EQ(message, "cannot load module \"" + path +
                         "\": written by a newer PyTorch in TorchScript file format 11 (the "
                         "archive records no PyTorch version); this is LibTorch " +
                         Ours() + ", which reads format versions up to " +
                         std::to_string(caffe2::serialize::kMaxSupportedFileFormatVersion));
  EXPECT_EQ(m, nullptr);
}

TEST(VersionsTest, ANewerFileFormatFromBytes) {
  std::ifstream file(Fixture("newer_format.pt"), std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(file)), {});
  tsb_module* m = nullptr;
  auto [code, message] = Refusal(tsb_module_read(bytes.data(), bytes.size(), &m));
  EXPECT_EQ(code, TSB_ERR_UNSUPPORTED);
  EXPECT_THAT(message, HasSubstr("cannot load a module from " + std::to_string(bytes.size()) +
                                 " bytes: written by a newer PyTorch in TorchScript file "
                                 "format 11"));
  EXPECT_THAT(message, HasSubstr("this is LibTorch " + Ours()));
}

// An aten:: operator this LibTorch lacks is another release's, not a
// library to load: the message names this LibTorch and what the archive
// records (the file format version torch.jit.save wrote, 3 for this code).
TEST(VersionsTest, AnUnknownTorchOperatorNamesTheVersions) {
  const std::string path = Fixture("unknown_op.pt");
  tsb_module* m = nullptr;
  auto [code, message] = Refusal(tsb_module_load(path.c_str(), &m));
  EXPECT_EQ(code, TSB_ERR_UNSUPPORTED);
  EXPECT_EQ(message, "cannot load module \"" + path +
                         "\": its code calls the operator aten::tsb_newer_op, which LibTorch " +
                         Ours() +
                         " does not have: another PyTorch release wrote it (the archive records "
                         "TorchScript file format 3 and no PyTorch version)");
  EXPECT_THAT(message, ::testing::Not(HasSubstr("tsb_library_load")));
}

// What a package's model library is read for (core/plugins/shared_object.h),
// on every release: the core library's own needs name this LibTorch's
// libtorch_cpu, as Debian names it; a cut or foreign image names nothing.
TEST(VersionsTest, TheLibrariesAnElfImageNeeds) {
  std::ifstream file(BuildPath("TSB_CORE_LIBRARY"), std::ios::binary);
  const std::string image((std::istreambuf_iterator<char>(file)), {});
  ASSERT_GT(image.size(), 4096u);
  EXPECT_THAT(plugins::NeededLibraries(image),
              ::testing::Contains("libtorch_cpu.so." + Ours()));
  EXPECT_THAT(plugins::NeededLibraries(absl::string_view(image).substr(0, 4096)),
              ::testing::IsEmpty());
  EXPECT_THAT(plugins::NeededLibraries("not an ELF file at all, but long enough to hold a header "
                                       "of one"),
              ::testing::IsEmpty());
}

#if TSB_TORCH_AT_LEAST(2, 6)
// The package's model library needs the next release's libtorch_cpu.
TEST(VersionsTest, APackageCompiledByAnotherReleaseNamesBoth) {
  std::ifstream json(Fixture("versions.json"));
  const std::string text((std::istreambuf_iterator<char>(json)), {});
  const std::string key = "\"newer_torch\": \"";
  const size_t at = text.find(key);
  ASSERT_NE(at, std::string::npos) << text;
  const std::string theirs = text.substr(at + key.size(), text.find('"', at + key.size()) -
                                                              at - key.size());
  const std::string path = Fixture("newer_torch.pt2");
  tsb_module* m = nullptr;
  auto [code, message] = Refusal(tsb_module_load(path.c_str(), &m));
  EXPECT_EQ(code, TSB_ERR_UNSUPPORTED);
  EXPECT_EQ(message, "cannot load \"" + path + "\": compiled by PyTorch " + theirs +
                         " (its model \"model\" needs libtorch_cpu.so." + theirs +
                         "); this is LibTorch " + Ours() +
                         ": compile the package again with PyTorch " + Ours());
}
#endif

}  // namespace
}  // namespace tsb::testing
