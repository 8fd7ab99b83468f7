// What the fuzz targets share: the input read byte by byte, a typed input
// ("<type string>\n<bytes>") split and its type parsed, the bundled plugins
// loaded once, a value written as JSON.
#ifndef TSBRIDGE_TESTS_FUZZ_FUZZ_INPUT_H_
#define TSBRIDGE_TESTS_FUZZ_FUZZ_INPUT_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "tsbridge/tsbridge.h"

namespace tsb::fuzz {

// The input, one byte at a time; zeros past its end.
struct Bytes {
  const uint8_t* data;
  size_t size;
  uint8_t Next() {
    if (size == 0) return 0;
    --size;
    return *data++;
  }
  int64_t Int() { return static_cast<int8_t>(Next()); }
  template <typename T>
  T Raw() {
    T out{};
    uint8_t buf[sizeof(T)] = {};
    for (size_t i = 0; i < sizeof(T); ++i) buf[i] = Next();
    std::memcpy(&out, buf, sizeof(T));
    return out;
  }
};

// Tuple, Optional, Union and the records, once per process.
inline void LoadBundledPlugins() {
  static const bool loaded = [] {
    tsb_status_free(tsb_plugin_load_bundled());
    return true;
  }();
  (void)loaded;
}

// "<type string>\n<rest>": the type parsed into *type, the rest in *rest;
// false when there is no newline or the type does not parse.
inline bool SplitTyped(const uint8_t* data, size_t size, int32_t* type, Bytes* rest) {
  const char* begin = reinterpret_cast<const char*>(data);
  const char* newline = static_cast<const char*>(std::memchr(begin, '\n', size));
  if (newline == nullptr) return false;
  if (tsb_status* s = tsb_type_parse(std::string(begin, newline).c_str(), type)) {
    tsb_status_free(s);
    return false;
  }
  const size_t used = static_cast<size_t>(newline + 1 - begin);
  *rest = Bytes{data + used, size - used};
  return true;
}

// `value` as JSON; empty if that fails (a status is fine, a crash not).
inline std::string JsonOf(const tsb_any& value) {
  char* text = nullptr;
  if (tsb_status* s = tsb_json_write(&value, &text)) {
    tsb_status_free(s);
    return {};
  }
  std::string out(text);
  tsb_string_free(text);
  return out;
}

}  // namespace tsb::fuzz

#endif  // TSBRIDGE_TESTS_FUZZ_FUZZ_INPUT_H_
