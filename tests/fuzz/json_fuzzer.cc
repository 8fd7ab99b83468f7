// libFuzzer: JSON text to a value of an expected type. The input is
// "<type string>\n<json>": the type is parsed like any host's, then the JSON
// read against it. Whatever the input: a value or a status, and a value
// that reads must write back to JSON that reads again to the same text.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "tsbridge/tsbridge.h"
#include "tsbridge/host/tsbridge.hpp"
#include "fuzz_input.h"
#include "no_backtraces.h"

namespace {

// Writes `value` as JSON; empty if that fails (a status is fine, a crash not).
std::string ToJson(const tsb_any& value) {
  char* text = nullptr;
  if (tsb_status* s = tsb_json_write(&value, &text)) {
    tsb_status_free(s);
    return {};
  }
  std::string out(text);
  tsb_string_free(text);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tsb::fuzz::DropLibTorchBacktraces();
  tsb::fuzz::LoadBundledPlugins();
  const char* begin = reinterpret_cast<const char*>(data);
  const char* newline = static_cast<const char*>(std::memchr(begin, '\n', size));
  if (newline == nullptr) return 0;
  const std::string type_string(begin, newline);
  const std::string json(newline + 1, begin + size);  // NUL-terminated copy
  int32_t type = TSB_TYPE_INVALID;
  if (tsb_status* s = tsb_type_parse(type_string.c_str(), &type)) {
    tsb_status_free(s);
    return 0;
  }
  const size_t live_before = ::tsb::LiveHandles();
  tsb_any value{};
  if (tsb_status* s = tsb_json_read(json.c_str(), type, &value)) {
    tsb_status_free(s);
  } else {
    // What tsbridge wrote, it reads back, and writes the same again.
    const std::string first = ToJson(value);
    tsb_any again{};
    tsb_status* reread = tsb_json_read(first.c_str(), type, &again);
    if (reread != nullptr || ToJson(again) != first) std::abort();
    tsb_any_release(&again);
    tsb_any_release(&value);
  }
  if (::tsb::LiveHandles() != live_before) std::abort();  // a leak is a finding
  return 0;
}
