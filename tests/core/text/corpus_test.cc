// The corpus (make_corpus.py): values PyTorch saved, loaded by tsbridge and
// printed as JSON, against the JSON the mapping gives for what PyTorch
// itself loads — computed in Python. This cross-checks the JSON writer and
// pickle loading against PyTorch's own view of the same bytes.
#include <string>

#include <nlohmann/json.hpp>

#include "tests/core/text/python_peer.h"
#include "tests/core/text/text_testing.h"

namespace tsb::testing {
namespace {

using Json = nlohmann::ordered_json;
using CorpusTest = JsonTest;

TEST_F(CorpusTest, PickledByPyTorchPrintsAsPythonComputesIt) {
  TSB_REQUIRE_PYTORCH();
  const std::string dir = WorkDir("corpus");
  PythonRun run = RunPython(Script("text/make_corpus.py") + " " + Quoted(dir));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  Json index = Json::parse(ReadFile(dir + "/index.json"));
  ASSERT_GE(index.size(), 30u);
  int checked = 0, refused = 0, diverging = 0;
  for (const Json& entry : index) {
    const std::string name = entry["name"];
    const std::string bytes = ReadFile(entry["file"]);
    ASSERT_FALSE(bytes.empty()) << name;
    Value v;
    Status s(tsb_pickle_read(bytes.data(), bytes.size(), v.out()));
    if (entry.contains("expect_error")) {
      // A known limit of LibTorch's unpickler (docs/json.md): it must fail
      // cleanly, and for the documented reason.
      ASSERT_NE(s.get(), nullptr) << name << " loads now: update make_corpus.py";
      EXPECT_NE(std::string(tsb_status_get_message(s.get()))
                    .find(entry["expect_error"].get<std::string>()),
                std::string::npos)
          << name << ": " << tsb_status_get_message(s.get());
      ++refused;
      continue;
    }
    ASSERT_EQ(s.get(), nullptr) << name << ": " << tsb_status_get_message(s.get());
    const std::string printed = ToJson(v.get());
    if (entry.contains("libtorch_json")) {
      // A documented divergence of LibTorch's unpickler from torch.load.
      EXPECT_EQ(Json::parse(printed), entry["libtorch_json"]) << name << ": " << printed;
      EXPECT_NE(entry["libtorch_json"], entry["json"]) << name << ": LibTorch agrees now";
      ++diverging;
      continue;
    }
    // Parsed JSON compares values in order; the canonical dump also tells an
    // int 1 from a float 1.0, which == on parsed numbers does not.
    EXPECT_EQ(Json::parse(printed), entry["json"]) << name << ": " << printed;
    EXPECT_EQ(Canonical(printed), entry["json"].dump()) << name;
    // What tsbridge loaded reads back from its own JSON as the same value.
    tsb_type_info info{};
    info.struct_size = sizeof(info);
    TSB_ASSERT_OK(tsb_type_get_info(v.get().type_index, &info));
    Value again(FromJson(printed, info.annotation));
    EXPECT_EQ(ToJson(again.get()), printed) << name << " as " << info.annotation;
    ++checked;
  }
  EXPECT_EQ(checked + refused + diverging, static_cast<int>(index.size()));
  std::cout << "corpus: " << checked << " values match PyTorch, " << refused
            << " refused and " << diverging << " diverging as documented\n";
}

}  // namespace
}  // namespace tsb::testing
