// The one path syntax (docs/abi.md, "Paths and messages"): how a place in a
// value is spelled by the core, the plugin SDK, the host kit and every host,
// so that the same bad input reads the same everywhere. Header-only C++17,
// no dependency: the host layer (host/tsbridge.hpp, host/kit.hpp) and the
// plugin SDK (plugin/errors.hpp) both spell their segments with it.
//
//   forward(): argument 'p' → [3] → key "b" → field 'x'
#ifndef TSBRIDGE_PATH_HPP_
#define TSBRIDGE_PATH_HPP_

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace tsb {

// Between two segments of a path.
inline constexpr std::string_view kPathArrow = " \u2192 ";

inline std::string IndexSegment(size_t i) { return "[" + std::to_string(i) + "]"; }
inline std::string FieldSegment(std::string_view name) {
  return "field '" + std::string(name) + "'";
}
inline std::string ArgumentSegment(std::string_view name) {
  return "argument '" + std::string(name) + "'";
}
// A dict key given as its spelling: key "b", key 3, key 1.5, key True.
inline std::string KeySegment(std::string_view repr) { return "key " + std::string(repr); }
inline std::string StrKeySegment(std::string_view key) {
  return "key \"" + std::string(key) + "\"";
}
inline std::string IntKeySegment(int64_t key) { return "key " + std::to_string(key); }
inline std::string BoolKeySegment(bool key) { return key ? "key True" : "key False"; }
// The shortest spelling that reads back as the same double, with ".0" on a
// whole number, as Python's repr and TorchScript print floats: key 1.5,
// key 2.0, key 1e+100, key inf.
inline std::string FloatKeySegment(double key) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, key);
  std::string text(buf, ec == std::errc() ? end : buf);
  if (text.find_first_of(".eEn") == std::string::npos) text += ".0";
  return "key " + text;
}

// The path `where` continued by `path` ("f(): argument 'x'" + "[1]" →
// "f(): argument 'x' → [1]"); either may be empty.
inline std::string JoinPath(const std::string& where, const std::string& path) {
  if (where.empty()) return path;
  return path.empty() ? where : where + std::string(kPathArrow) + path;
}

}  // namespace tsb

#endif  // TSBRIDGE_PATH_HPP_
