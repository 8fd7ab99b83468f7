// tsb_plugin_defer_bundled: the bundled plugins load on first need, as their
// index (plugins/index) says. ctest runs each test in a new process
// (tsb_add_gtest PROCESS_PER_TEST), so each starts with no plugin loaded.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/plugins/deferred_plugins.h"
#include "tests/testing/abi_test.h"

namespace tsb::testing {
namespace {

namespace fs = std::filesystem;
using plugins::DeferredPlugins;
using plugins::OfferedPlugin;
using plugins::ParsePluginIndex;

std::vector<std::string> Loaded() {
  std::vector<std::string> names;
  size_t count = 0;
  EXPECT_EQ(Status(tsb_plugin_count(&count)).get(), nullptr);
  for (size_t id = 0; id < count; ++id) {
    tsb_plugin_info info{};
    info.struct_size = sizeof info;
    EXPECT_EQ(Status(tsb_plugin_get_info(static_cast<int32_t>(id), &info)).get(), nullptr);
    names.emplace_back(info.name);
  }
  return names;
}

int32_t Parse(const char* annotation) {
  int32_t index = -1;
  Status s(tsb_type_parse(annotation, &index));
  EXPECT_EQ(s.get(), nullptr) << annotation << ": " << tsb_status_get_message(s.get());
  return index;
}

// A directory of its own, with an index written by the test.
class ScratchDir {
 public:
  ScratchDir() {
    path_ = fs::temp_directory_path() /
            ("tsb_deferred_" + std::to_string(getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~ScratchDir() { fs::remove_all(path_); }
  std::string path() const { return path_.string(); }
  void Write(const std::string& name, const std::string& text) const {
    std::ofstream(path_ / name) << text;
  }
  void CopyBundled(const std::string& file) const {
    fs::copy_file(fs::path(BundledPluginDir()) / file, path_ / file);
  }

 private:
  fs::path path_;
};

TEST(DeferredPluginsTest, TheBuildWroteAnIndex) {
  ASSERT_TRUE(fs::exists(fs::path(BundledPluginDir()) / "index.json"))
      << "plugins/CMakeLists.txt writes it next to the bundled plugins";
}

TEST(DeferredPluginsTest, NothingLoadsUntilNeeded) {
  TSB_ASSERT_OK(tsb_plugin_defer_bundled());
  EXPECT_EQ(DeferredPlugins::Global().pending(), 3);
  Parse("List[int]");
  Parse("Dict[str, List[Tensor]]");
  size_t overloads = 0;
  TSB_ASSERT_OK(tsb_op_count_overloads("aten::add", &overloads));
  EXPECT_EQ(Loaded(), std::vector<std::string>{});
}

TEST(DeferredPluginsTest, ATupleLoadsTheTuplePluginOnly) {
  TSB_ASSERT_OK(tsb_plugin_defer_bundled());
  Parse("Tuple[int, str]");
  EXPECT_EQ(Loaded(), std::vector<std::string>{"tuple"});
  EXPECT_EQ(DeferredPlugins::Global().pending(), 2);
}

TEST(DeferredPluginsTest, AnOptionalLoadsTheOptionalPlugin) {
  TSB_ASSERT_OK(tsb_plugin_defer_bundled());
  Parse("List[Optional[int]]");
  EXPECT_EQ(Loaded(), std::vector<std::string>{"optional"});
}

TEST(DeferredPluginsTest, ANamedTypeLoadsThePluginThatRegistersIt) {
  TSB_ASSERT_OK(tsb_plugin_defer_bundled());
  // The name loads sparse. Its registration needs the Optional and Tuple
  // codecs (its functions return records with a Tensor? field), loaded first
  // on the same thread; sparse is listed once its own registration is done.
  Parse("torchsparse.tensor_pair");
  EXPECT_EQ(Loaded(), (std::vector<std::string>{"optional", "tuple", "sparse"}));
}

TEST(DeferredPluginsTest, AnOperatorLoadsThePluginThatRegistersItsNamespace) {
  TSB_ASSERT_OK(tsb_plugin_defer_bundled());
  size_t overloads = 0;
  TSB_ASSERT_OK(tsb_op_count_overloads("torchsparse::csr_to_coo", &overloads));
  EXPECT_EQ(overloads, 1u);
  EXPECT_EQ(Loaded().back(), "sparse");
}

TEST(DeferredPluginsTest, AFunctionLoadsThePluginThatRegistersIt) {
  TSB_ASSERT_OK(tsb_plugin_defer_bundled());
  tsb_schema_info info{};
  info.struct_size = sizeof info;
  TSB_ASSERT_OK(tsb_function_get_schema("torchsparse::relabel", &info));
  EXPECT_EQ(Loaded().back(), "sparse");
}

TEST(DeferredPluginsTest, SourceCallingItsOperatorsLoadsThePluginFirst) {
  TSB_ASSERT_OK(tsb_plugin_defer_bundled());
  tsb_module* module = nullptr;
  TSB_ASSERT_OK(tsb_module_compile(
      "def f(self, rowptr: Tensor) -> Tensor:\n"
      "    return ops.torchsparse.csr_to_coo(rowptr)\n",
      &module));
  tsb_module_free(module);
  EXPECT_EQ(Loaded().back(), "sparse");
}

TEST(DeferredPluginsTest, LoadBundledLoadsWhatIsLeft) {
  TSB_ASSERT_OK(tsb_plugin_defer_bundled());
  Parse("Optional[int]");
  TSB_ASSERT_OK(tsb_plugin_load_bundled());
  EXPECT_EQ(Loaded(), (std::vector<std::string>{"optional", "tuple", "sparse"}));
  EXPECT_EQ(DeferredPlugins::Global().pending(), 0);
  TSB_EXPECT_OK(tsb_plugin_defer_bundled());  // again: a no-op
  EXPECT_EQ(Loaded().size(), 3u);
}

TEST(DeferredPluginsTest, AnOfferedPluginLoadedByPathRegistersOnce) {
  TSB_ASSERT_OK(tsb_plugin_defer_bundled());
  // sparse's registration parses its own type names, which the index says
  // sparse provides: the offer must not load the file a second time inside
  // the first load (tsb --plugin sparse.so; the soaks found it).
  const std::string sparse = std::string(BundledPluginDir()) + "/sparse.so";
  TSB_ASSERT_OK(tsb_plugin_load(sparse.c_str(), nullptr));
  Parse("torchsparse.tensor_pair");
  std::vector<std::string> loaded = Loaded();
  EXPECT_EQ(std::count(loaded.begin(), loaded.end(), "sparse"), 1) << loaded.size();
  TSB_EXPECT_OK(tsb_plugin_load_bundled());
  EXPECT_EQ(Loaded().size(), 3u);
}

TEST(DeferredPluginsTest, APluginTheIndexDoesNotListLoadsAtOnce) {
  ScratchDir dir;
  dir.CopyBundled("tuple.so");
  dir.Write("index.json", R"({"tsbridge_plugin_index": 1, "plugins": []})");
  ASSERT_TRUE(DeferredPlugins::Global().Offer(dir.path()).ok());
  EXPECT_EQ(Loaded(), std::vector<std::string>{"tuple"});
}

TEST(DeferredPluginsTest, APluginThatFailsToLoadFailsEachNeedWithTheReason) {
  ScratchDir dir;
  dir.Write("broken.so", std::string(4096, 'x'));
  dir.Write("index.json", R"({"tsbridge_plugin_index": 1, "plugins": [
      {"file": "broken.so", "name": "broken", "kinds": ["Tuple"]}]})");
  ASSERT_TRUE(DeferredPlugins::Global().Offer(dir.path()).ok());
  for (int attempt = 0; attempt < 2; ++attempt) {  // not retried: the same reason
    int32_t index = 0;
    Status s(tsb_type_parse("Tuple[int]", &index));
    ASSERT_NE(s.get(), nullptr);
    EXPECT_EQ(std::string(tsb_status_get_message(s.get()))
                  .rfind("no codec for Tuple[int]: the deferred plugin 'broken' that provides "
                         "it did not load: cannot load plugin '" + dir.path() + "/broken.so'",
                         0),
              0u)
        << tsb_status_get_message(s.get());
  }
}

TEST(DeferredPluginsTest, APluginGoneBeforeItIsNeededFailsTheNeedWithTheReason) {
  ScratchDir dir;
  dir.CopyBundled("tuple.so");
  dir.Write("index.json", R"({"tsbridge_plugin_index": 1, "plugins": [
      {"file": "tuple.so", "name": "tuple", "kinds": ["Tuple"]}]})");
  ASSERT_TRUE(DeferredPlugins::Global().Offer(dir.path()).ok());
  fs::remove(fs::path(dir.path()) / "tuple.so");
  // The loader says NOT_FOUND ("no such file"): a reason, not "nothing provides it".
  int32_t index = 0;
  Status s(tsb_type_parse("Tuple[int]", &index));
  ASSERT_NE(s.get(), nullptr);
  EXPECT_EQ(tsb_status_get_code(s.get()), TSB_ERR_NOT_FOUND);
  EXPECT_STREQ(tsb_status_get_message(s.get()),
               ("no codec for Tuple[int]: the deferred plugin 'tuple' that provides it did not "
                "load: cannot load plugin '" + dir.path() + "/tuple.so': no such file").c_str());
}

TEST(DeferredPluginsTest, AnIndexListingAMissingFileIsRefused) {
  ScratchDir dir;
  dir.Write("index.json", R"({"tsbridge_plugin_index": 1, "plugins": [
      {"file": "gone.so", "name": "gone"}]})");
  absl::Status offered = DeferredPlugins::Global().Offer(dir.path());
  EXPECT_TRUE(absl::IsNotFound(offered)) << offered;
  EXPECT_EQ(offered.message(), "the plugin index of " + dir.path() + " lists " + dir.path() +
                                   "/gone.so, which is not there");
  EXPECT_EQ(DeferredPlugins::Global().pending(), 0);
}

TEST(PluginIndexTest, MalformedIndexesSayWhatAndWhere) {
  struct Case {
    const char* json;
    const char* error;
  };
  const Case cases[] = {
      {"[1", "invalid plugin index d/index.json: not JSON"},
      {R"({"plugins": []})",
       "invalid plugin index d/index.json: expected {\"tsbridge_plugin_index\": 1, "
       "\"plugins\": [...]}"},
      {R"({"tsbridge_plugin_index": 1, "plugins": [{"file": "a.so"}]})",
       "invalid plugin index d/index.json → plugins → [0]: expected an object with a "
       "\"file\" and a \"name\""},
      {R"({"tsbridge_plugin_index": 1, "plugins": [{"file": "../a.so", "name": "a"}]})",
       "invalid plugin index d/index.json → plugins → [0]: \"file\" is \"../a.so\", not a "
       "file name in the index's directory"},
      {R"({"tsbridge_plugin_index": 1, "plugins": [{"file": "a.so", "name": "a",
          "kinds": [""]}]})",
       "invalid plugin index d/index.json → plugins → [0]: 'kinds' holds \"\", not a name"},
      {R"({"tsbridge_plugin_index": 1, "plugins": [{"file": "a.so", "name": "a",
          "types": "x"}]})",
       "invalid plugin index d/index.json → plugins → [0]: 'types' is not a list"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<std::vector<OfferedPlugin>> parsed = ParsePluginIndex(c.json, "d");
    ASSERT_FALSE(parsed.ok()) << c.json;
    EXPECT_EQ(parsed.status().message(), c.error);
  }
}

TEST(PluginIndexTest, NamespacesBecomeTheTokensThatNeedThem) {
  absl::StatusOr<std::vector<OfferedPlugin>> parsed = ParsePluginIndex(
      R"({"tsbridge_plugin_index": 1, "plugins": [{"file": "s.so", "name": "s",
          "kinds": ["Tuple"], "types": ["s.pair"], "functions": ["s::f"],
          "namespaces": ["s"]}]})",
      "/d");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ASSERT_EQ(parsed->size(), 1u);
  EXPECT_EQ((*parsed)[0].path, "/d/s.so");
  EXPECT_EQ((*parsed)[0].kinds, std::vector<std::string>{"Tuple"});
  EXPECT_EQ((*parsed)[0].tokens,
            (std::vector<std::string>{"s.pair", "s::f", "s::", "ops.s.", "classes.s."}));
}

}  // namespace
}  // namespace tsb::testing
