// The vocabulary both directions share: names of dtypes, layouts and memory
// formats, float specials, and how an error describes a JSON value.
#include "core/text/json_codec.h"

#include <array>
#include <cmath>
#include <algorithm>
#include <limits>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace tsb::json {
namespace {

// Indexed by the c10 enum's code; spelled as torch's Python names (without
// "torch."), which is what a user of torch.save / str(torch.float32) knows.
// c10's Undefined (no Python name) is "undefined", so every code the dtype
// codec accepts prints.
constexpr std::array<const char*, 19> kDtypeNames = {
    "uint8",     "int8",      "int16",   "int32",  "int64",  "float16",
    "float32",   "float64",   "complex32", "complex64", "complex128", "bool",
    "qint8",     "quint8",    "qint32",  "bfloat16", "quint4x2", "quint2x4",
    "undefined"};
static_assert(kDtypeNames.size() == static_cast<size_t>(c10::ScalarType::NumOptions),
              "a dtype was added to LibTorch: name it here and in docs/json.md");

constexpr std::array<const char*, 7> kLayoutNames = {
    "strided", "sparse_coo", "sparse_csr", "_mkldnn",
    "sparse_csc", "sparse_bsr", "sparse_bsc"};
static_assert(kLayoutNames.size() == static_cast<size_t>(c10::Layout::NumOptions),
              "a layout was added to LibTorch: name it here and in docs/json.md");

constexpr std::array<const char*, 4> kMemoryFormatNames = {
    "contiguous_format", "preserve_format", "channels_last", "channels_last_3d"};
static_assert(kMemoryFormatNames.size() ==
                  static_cast<size_t>(c10::MemoryFormat::NumOptions),
              "a memory format was added to LibTorch: name it here and in docs/json.md");

template <size_t N>
std::optional<std::string> NameOf(const std::array<const char*, N>& names, int64_t code) {
  if (code < 0 || code >= static_cast<int64_t>(N)) return std::nullopt;
  return std::string(names[static_cast<size_t>(code)]);
}

template <size_t N>
std::optional<int64_t> CodeOf(const std::array<const char*, N>& names,
                              absl::string_view name) {
  absl::ConsumePrefix(&name, "torch.");
  for (size_t i = 0; i < N; ++i) {
    if (name == names[i]) return static_cast<int64_t>(i);
  }
  return std::nullopt;
}

std::string Truncated(const std::string& text, size_t limit = 40) {
  if (text.size() <= limit) return text;
  return absl::StrCat(text.substr(0, limit), "...");
}

}  // namespace

std::optional<std::string> DtypeName(int64_t code) { return NameOf(kDtypeNames, code); }
std::optional<std::string> LayoutName(int64_t code) { return NameOf(kLayoutNames, code); }
std::optional<std::string> MemoryFormatName(int64_t code) {
  return NameOf(kMemoryFormatNames, code);
}
std::optional<int64_t> DtypeCode(absl::string_view name) { return CodeOf(kDtypeNames, name); }
std::optional<int64_t> LayoutCode(absl::string_view name) {
  return CodeOf(kLayoutNames, name);
}
std::optional<int64_t> MemoryFormatCode(absl::string_view name) {
  return CodeOf(kMemoryFormatNames, name);
}

const CodeNames* CodeNamesOf(int32_t kind) {
  static constexpr CodeNames kDtype{DtypeName, DtypeCode};
  static constexpr CodeNames kLayout{LayoutName, LayoutCode};
  static constexpr CodeNames kMemoryFormat{MemoryFormatName, MemoryFormatCode};
  switch (kind) {
    case TSB_KIND_DTYPE: return &kDtype;
    case TSB_KIND_LAYOUT: return &kLayout;
    case TSB_KIND_MEMORY_FORMAT: return &kMemoryFormat;
    default: return nullptr;
  }
}

// JSON has no NaN or infinities; these strings are what Python's json module
// reads back with parse_constant, minus its non-standard bare literals.
Json FloatToJson(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
  return d;
}

std::optional<double> FloatFromJson(const Json& json) {
  if (json.is_number()) return json.get<double>();
  if (json.is_string()) {
    const std::string& s = json.get_ref<const std::string&>();
    if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
    if (s == "Infinity") return std::numeric_limits<double>::infinity();
    if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
  }
  return std::nullopt;
}

std::string DescribeJson(const Json& json) {
  switch (json.type()) {
    case Json::value_t::null: return "JSON null";
    case Json::value_t::boolean: return json.get<bool>() ? "JSON true" : "JSON false";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
    case Json::value_t::number_float:
      return absl::StrCat("JSON number ", json.dump());
    case Json::value_t::string:
      return absl::StrCat("JSON string \"",
                          Truncated(json.get_ref<const std::string&>()), "\"");
    case Json::value_t::array:
      return absl::StrCat("JSON array of ", json.size(),
                          json.size() == 1 ? " element" : " elements");
    case Json::value_t::object:
      return absl::StrCat("JSON object with ", json.size(),
                          json.size() == 1 ? " key" : " keys");
    default: return "JSON value";
  }
}

namespace {

// "[json.exception.parse_error.101] parse error at ..." -> "parse error at ...".
absl::string_view WithoutExceptionId(absl::string_view what) {
  size_t bracket = what.find("] ");
  if (absl::StartsWith(what, "[json.exception.") && bracket != what.npos) {
    what.remove_prefix(bracket + 2);
  }
  return what;
}

// The depth of a document, walked with an explicit stack: the reader is
// recursive, so a hostile document is refused here, before it is read.
int DepthOf(const Json& root) {
  int max_depth = 0;
  std::vector<std::pair<const Json*, int>> stack = {{&root, 0}};
  while (!stack.empty()) {
    auto [json, depth] = stack.back();
    stack.pop_back();
    max_depth = std::max(max_depth, depth);
    if (depth > kMaxDepth) break;
    if (json->is_structured()) {
      for (const Json& child : *json) stack.emplace_back(&child, depth + 1);
    }
  }
  return max_depth;
}

}  // namespace

absl::StatusOr<Json> Parse(absl::string_view text) {
  Json json;
  try {
    json = Json::parse(text.begin(), text.end());  // iterative: any depth is safe
  } catch (const Json::parse_error& e) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid JSON (byte ", e.byte, "): ", WithoutExceptionId(e.what())));
  } catch (const Json::exception& e) {  // a number too large for a double
    return absl::InvalidArgumentError(
        absl::StrCat("invalid JSON: ", WithoutExceptionId(e.what())));
  }
  if (DepthOf(json) > kMaxDepth) {
    return absl::InvalidArgumentError(
        absl::StrCat("JSON nested deeper than ", kMaxDepth, " levels"));
  }
  return json;
}

std::string Dump(const Json& json) {
  return json.dump(-1, ' ', /*ensure_ascii=*/false, Json::error_handler_t::replace);
}

}  // namespace tsb::json
