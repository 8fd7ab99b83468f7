// The JSON text form of TorchScript values (docs/json.md is the contract).
//
// Both directions are type-directed: on the way out the value's boundary type
// decides (an IValue int is a dtype when the type says ScalarType); on the
// way in the expected type decides what a JSON value means (1 is an int for
// `int` and a float for `float`; [1, 2] is a List or a Tuple). JSON is never
// sniffed except where the expected type is Any, which is the one place the
// JSON has to speak for itself.
//
// nlohmann::ordered_json keeps object members in insertion order, so a
// Dict[str, T] and a NamedTuple print in their own order.
#ifndef TSBRIDGE_CORE_TEXT_JSON_CODEC_H_
#define TSBRIDGE_CORE_TEXT_JSON_CODEC_H_

#include <optional>
#include <string>

#include <ATen/core/ivalue.h>
#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/value/nesting.h"
#include "tsbridge/plugin/kind_codec.hpp"

namespace tsb::text {

using Json = nlohmann::ordered_json;

// Values nested deeper than this are refused in both directions: the walk is
// recursive, and a hostile document must not overflow the stack. The same
// bound as every other walk of a value (core/value/nesting.h).
inline constexpr int kMaxDepth = kMaxValueDepth;

// `value`, whose type is `type` (abstract types resolve to the value's own).
absl::StatusOr<Json> Write(const c10::IValue& value, const TypeInfo& type);

// The value `json` denotes as a value of type `expected`. Mismatches are
// type errors with the path into the document.
absl::StatusOr<c10::IValue> Read(const Json& json, const TypeInfo& expected);

// Parses text; a syntax error is INVALID_ARGUMENT with its byte position.
absl::StatusOr<Json> Parse(absl::string_view text);

// Compact text; non-ASCII UTF-8 is kept as it is. Invalid UTF-8 in a str is
// replaced by U+FFFD rather than failing the whole document.
std::string Dump(const Json& json);

// ------------------------------------------------------------- vocabulary
// Shared by the writer and the reader so both spell names the same way.

// torch's names: "float32", "strided", "contiguous_format"; nullopt for a
// code LibTorch does not define.
std::optional<std::string> DtypeName(int64_t code);
std::optional<std::string> LayoutName(int64_t code);
std::optional<std::string> MemoryFormatName(int64_t code);
// The inverse; accepts an optional "torch." prefix ("torch.float32").
std::optional<int64_t> DtypeCode(absl::string_view name);
std::optional<int64_t> LayoutCode(absl::string_view name);
std::optional<int64_t> MemoryFormatCode(absl::string_view name);

// A kind whose values are codes with names, both directions: dtype, layout,
// memory format. nullptr for any other kind.
struct CodeNames {
  std::optional<std::string> (*name)(int64_t code);
  std::optional<int64_t> (*code)(absl::string_view name);
};
const CodeNames* CodeNamesOf(int32_t kind);

// A float as JSON: a number, or "NaN", "Infinity", "-Infinity".
Json FloatToJson(double d);
// A JSON number or one of those strings; nullopt otherwise.
std::optional<double> FloatFromJson(const Json& json);

// What an error says it found: JSON string "x", JSON number 1.5,
// JSON array of 3 elements, JSON object with 2 keys.
std::string DescribeJson(const Json& json);

}  // namespace tsb::text

#endif  // TSBRIDGE_CORE_TEXT_JSON_CODEC_H_
