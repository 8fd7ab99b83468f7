// libFuzzer: JSON text to a value of an expected type. The input is
// "<type string>\n<json>": the type is parsed like any host's, then the JSON
// read against it. Whatever the input: a value or a status, and a value
// that reads must write back to JSON that reads again to the same text.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "tsbridge/tsbridge.h"
#include "tsbridge/host/tsbridge.hpp"
#include "fuzz_input.h"
#include "no_backtraces.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tsb::fuzz::DropLibTorchBacktraces();
  tsb::fuzz::LoadBundledPlugins();
  int32_t type = TSB_TYPE_INVALID;
  tsb::fuzz::Bytes rest{};
  if (!tsb::fuzz::SplitTyped(data, size, &type, &rest)) return 0;
  const std::string json(reinterpret_cast<const char*>(rest.data), rest.size);  // NUL-terminated
  const size_t live_before = ::tsb::LiveHandles();
  tsb_any value{};
  if (tsb_status* s = tsb_json_read(json.c_str(), type, &value)) {
    tsb_status_free(s);
  } else {
    // What tsbridge wrote, it reads back, and writes the same again.
    const std::string first = tsb::fuzz::JsonOf(value);
    tsb_any again{};
    tsb_status* reread = tsb_json_read(first.c_str(), type, &again);
    if (reread != nullptr || tsb::fuzz::JsonOf(again) != first) std::abort();
    tsb_any_release(&again);
    tsb_any_release(&value);
  }
  if (::tsb::LiveHandles() != live_before) std::abort();  // a leak is a finding
  return 0;
}
