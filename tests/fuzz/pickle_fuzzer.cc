// libFuzzer: pickle bytes to a value. The first byte picks the layer:
// 'P' wraps the rest as data.pkl of a torch.save archive (so the fuzzer
// reaches LibTorch's unpickler and tsbridge's conversion of whatever it
// builds, past the zip CRCs); anything else is the archive itself.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include <caffe2/serialize/inline_container.h>

#include "tsbridge/tsbridge.h"
#include "tsbridge/host/tsbridge.hpp"
#include "no_backtraces.h"

namespace {

// A torch.save-style archive whose data.pkl is `pickle` (no tensor records).
std::string Archive(const uint8_t* pickle, size_t size) {
  std::string out;
  caffe2::serialize::PyTorchStreamWriter writer([&](const void* buf, size_t n) -> size_t {
    out.append(static_cast<const char*>(buf), n);
    return n;
  });
  writer.writeRecord("data.pkl", pickle, size);
  writer.writeEndOfFile();
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  tsb::fuzz::DropLibTorchBacktraces();
  const std::string bytes = data[0] == 'P'
                                ? Archive(data + 1, size - 1)
                                : std::string(reinterpret_cast<const char*>(data) + 1, size - 1);
  const size_t live_before = ::tsb::LiveHandles();
  tsb_any value{};
  if (tsb_status* s = tsb_pickle_read(bytes.data(), bytes.size(), &value)) {
    tsb_status_free(s);
  } else {
    // Whatever LibTorch built must be walkable by a host.
    char* text = nullptr;
    if (tsb_status* r = tsb_any_repr(&value, &text)) tsb_status_free(r);
    else tsb_string_free(text);
    if (tsb_status* j = tsb_json_write(&value, &text)) tsb_status_free(j);
    else tsb_string_free(text);
    tsb_any_release(&value);
  }
  if (::tsb::LiveHandles() != live_before) std::abort();  // a leak is a finding
  return 0;
}
