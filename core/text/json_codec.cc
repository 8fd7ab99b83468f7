// The vocabulary both directions share: names of dtypes, layouts and memory
// formats, float specials, and how an error describes a JSON value.
#include "core/text/json_codec.h"

#include <array>
#include <cmath>
#include <iterator>
#include <algorithm>
#include <limits>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace tsb::text {
namespace {

// Indexed by the c10 enum's code; spelled as torch's Python names (without
// "torch."), which is what a user of torch.save / str(torch.float32) knows.
// The codes up to quint2x4 are the same in every LibTorch; later releases
// append (LibTorch 2.14 names 47 dtypes, 2.6 44, 1.13 18), and c10's Undefined, the
// last code of each release, prints "undefined" so that every code the dtype
// codec accepts prints.
constexpr const char* kDtypeNamesUpTo214[] = {
    "uint8",     "int8",      "int16",      "int32",     "int64",     "float16",
    "float32",   "float64",   "complex32",  "complex64", "complex128", "bool",
    "qint8",     "quint8",    "qint32",     "bfloat16",  "quint4x2",  "quint2x4",
    // LibTorch 2.x
    "bits1x8",   "bits2x4",   "bits4x2",    "bits8",     "bits16",
    "float8_e5m2", "float8_e4m3fn", "float8_e5m2fnuz", "float8_e4m3fnuz",
    "uint16",    "uint32",    "uint64",
    "uint1",     "uint2",     "uint3",      "uint4",     "uint5",     "uint6",  "uint7",
    "int1",      "int2",      "int3",       "int4",      "int5",      "int6",   "int7",
    // LibTorch 2.14
    "float8_e8m0fnu", "float4_e2m1fn_x2", "bcomplex32"};
constexpr size_t kDtypeCount = static_cast<size_t>(c10::ScalarType::NumOptions);
static_assert(static_cast<size_t>(c10::ScalarType::Undefined) == kDtypeCount - 1 &&
                  std::size(kDtypeNamesUpTo214) >= kDtypeCount - 1,
              "a dtype was added to LibTorch: name it here and in docs/json.md");
constexpr std::array<const char*, kDtypeCount> kDtypeNames = [] {
  std::array<const char*, kDtypeCount> names{};
  for (size_t i = 0; i + 1 < kDtypeCount; ++i) names[i] = kDtypeNamesUpTo214[i];
  names[kDtypeCount - 1] = "undefined";
  return names;
}();

// The same rule: 2.x appended jagged (nested tensors).
constexpr const char* kLayoutNamesUpTo26[] = {
    "strided", "sparse_coo", "sparse_csr", "_mkldnn",
    "sparse_csc", "sparse_bsr", "sparse_bsc", "jagged"};
constexpr size_t kLayoutCount = static_cast<size_t>(c10::Layout::NumOptions);
static_assert(std::size(kLayoutNamesUpTo26) >= kLayoutCount,
              "a layout was added to LibTorch: name it here and in docs/json.md");
constexpr std::array<const char*, kLayoutCount> kLayoutNames = [] {
  std::array<const char*, kLayoutCount> names{};
  for (size_t i = 0; i < kLayoutCount; ++i) names[i] = kLayoutNamesUpTo26[i];
  return names;
}();

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

}  // namespace tsb::text
