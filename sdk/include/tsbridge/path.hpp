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
#include <type_traits>
#include <vector>

namespace tsb {

// Between two segments of a path.
inline constexpr std::string_view kPathArrow = " \u2192 ";

namespace path_internal {
// Any text: a std::string_view, a C string, a std::string, or a view type of
// its own with data() and size() (Abseil's absl::string_view, where it is
// not std::string_view).
template <typename Text>
std::string_view View(const Text& text) {
  if constexpr (std::is_convertible_v<const Text&, std::string_view>) {
    return text;
  } else {
    return std::string_view(text.data(), text.size());
  }
}
}  // namespace path_internal

inline std::string IndexSegment(size_t i) { return "[" + std::to_string(i) + "]"; }
template <typename Text>
std::string FieldSegment(const Text& name) {
  return "field '" + std::string(path_internal::View(name)) + "'";
}
template <typename Text>
std::string ArgumentSegment(const Text& name) {
  return "argument '" + std::string(path_internal::View(name)) + "'";
}
// A positional argument named by its position: where a callee's overloads
// name it differently, or a host has no schema (an object's method).
inline std::string PositionSegment(size_t i) { return "argument " + std::to_string(i); }
// A dict key given as its spelling: key "b", key 3, key 1.5, key True.
template <typename Text>
std::string KeySegment(const Text& repr) {
  return "key " + std::string(path_internal::View(repr));
}
template <typename Text>
std::string StrKeySegment(const Text& key) {
  return "key \"" + std::string(path_internal::View(key)) + "\"";
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

// A path of more than kPathShownFirst + kPathShownLast + 4 segments, as a
// value 600 lists deep gives, keeps its first and last segments with the
// count of those left out between: "[0] → ... → [0] → … (588 segments) → [0]
// → ...". A message stays a line long wherever the value nests.
inline constexpr size_t kPathShownFirst = 8;
inline constexpr size_t kPathShownLast = 4;
template <typename Text>
std::string ShortenPath(const Text& text) {
  const std::string_view path = path_internal::View(text);
  std::vector<std::string_view> segments;
  for (size_t start = 0;;) {
    const size_t arrow = path.find(kPathArrow, start);
    segments.push_back(path.substr(start, arrow == std::string_view::npos ? arrow : arrow - start));
    if (arrow == std::string_view::npos) break;
    start = arrow + kPathArrow.size();
  }
  if (segments.size() <= kPathShownFirst + kPathShownLast + 4) return std::string(path);
  std::string out;
  auto add = [&out](std::string_view segment) {
    if (!out.empty()) out += kPathArrow;
    out += segment;
  };
  for (size_t i = 0; i < kPathShownFirst; ++i) add(segments[i]);
  const size_t hidden = segments.size() - kPathShownFirst - kPathShownLast;
  add("\u2026 (" + std::to_string(hidden) + " segments)");
  for (size_t i = segments.size() - kPathShownLast; i < segments.size(); ++i) add(segments[i]);
  return out;
}

}  // namespace tsb

#endif  // TSBRIDGE_PATH_HPP_
