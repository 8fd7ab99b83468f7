// libFuzzer: tsb serve's request reader (hosts/serve/inference.cc and
// binary_data.cc) on one model whose forward takes a tensor, a str, a
// List[str], a Dict, a Tuple, an Optional and a Union. The input is
// "<request JSON>\0<binary data>" (the binary tensor data extension's body
// split where Inference-Header-Content-Length would). Whatever the input: a
// response or an HttpError of 4xx, never another exception, a crash or a
// leaked handle; and the request's JSON parsed by simdjson
// (request_json.h) exactly as nlohmann parses it.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>

#include <unistd.h>

#include "fuzz_input.h"
#include "hosts/serve/inference.h"
#include "hosts/serve/repository.h"
#include "hosts/serve/request_json.h"
#include "no_backtraces.h"

namespace {

constexpr const char* kSource = R"(
def forward(self, x: Tensor, s: str, words: List[str], d: Dict[str, Tensor],
            t: Tuple[int, str], o: Optional[float] = None, u: Union[int, str] = 0
            ) -> Tuple[Tensor, str, List[str], Dict[str, Tensor], Tuple[int, str],
                       Optional[float], Union[int, str]]:
    return x + 1, s, words, d, t, o, u
)";

// The repository: the module above compiled and saved as m/1/model.pt.
const tsb::serve::ModelVersion& Model() {
  static const tsb::serve::Repository* repository = [] {
    namespace fs = std::filesystem;
    const fs::path root = fs::temp_directory_path() / ("tsb_fuzz_serve_" + std::to_string(getpid()));
    fs::create_directories(root / "m" / "1");
    tsb_module* module = nullptr;
    tsb::Check(tsb_module_compile(kSource, &module));
    tsb::Module owned(module);
    owned.Save((root / "m" / "1" / "model.pt").string());
    auto* loaded = new tsb::serve::Repository(root.string());
    fs::remove_all(root);
    return loaded;
  }();
  return *repository->Find("m", "");  // served for the process: never unloaded
}

// The same document or the same refusal from ParseRequestJson as from
// nlohmann's parser: equal text when written, integers where integers.
void CheckSameParse(std::string_view json) {
  using tsb::serve::Json;
  std::optional<Json> ours, theirs;
  std::string ours_error, theirs_error;
  try {
    ours = tsb::serve::ParseRequestJson(json);
  } catch (const Json::exception& e) {
    ours_error = e.what();
  }
  try {
    theirs = Json::parse(json.begin(), json.end());
  } catch (const Json::exception& e) {
    theirs_error = e.what();
  }
  if (ours_error != theirs_error || ours.has_value() != theirs.has_value()) std::abort();
  if (ours && (ours->dump() != theirs->dump() || *ours != *theirs)) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tsb::fuzz::DropLibTorchBacktraces();
  tsb::fuzz::LoadBundledPlugins();
  const tsb::serve::ModelVersion& model = Model();
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t split = input.find('\0');
  const std::string_view json = input.substr(0, split);
  const std::string_view binary = split == std::string_view::npos ? "" : input.substr(split + 1);
  CheckSameParse(json);
  const size_t live_before = ::tsb::LiveHandles();
  try {
    const tsb::serve::InferResponse response = tsb::serve::Infer(model, json, binary);
    // The response's text is JSON, valid UTF-8 all through (typed JSON
    // text is spliced in as written): parsing it again throws otherwise.
    const tsb::serve::Json reparsed = tsb::serve::Json::parse(tsb::serve::ResponseText(response));
    (void)reparsed;
  } catch (const tsb::serve::HttpError& e) {
    if (e.status < 400 || e.status >= 500) std::abort();  // a request's fault is a 4xx
  }
  if (::tsb::LiveHandles() != live_before) std::abort();  // a leak is a finding
  return 0;
}
