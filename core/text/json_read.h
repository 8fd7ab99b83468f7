// Internal to the JSON reader: the pieces json_read.cc (structure) and
// json_read_leaf.cc (tensors, complex numbers, enums, Any) share.
#ifndef TSBRIDGE_CORE_TEXT_JSON_READ_H_
#define TSBRIDGE_CORE_TEXT_JSON_READ_H_

#include <atomic>
#include <memory>
#include <string>

#include "core/text/json_codec.h"

namespace tsb::text {

// The document a Read walks. The untyped values handed to codecs point into
// it; Read marks it finished on return, so one kept past it refuses to read.
struct Document {
  std::atomic<bool> alive{true};
};
using DocumentRef = std::shared_ptr<Document>;

// `json` as a value of `expected`, `depth` levels down the document `doc`.
absl::StatusOr<c10::IValue> ReadAt(const Json& json, const TypeInfo& expected, int depth,
                                   const DocumentRef& doc);
// The same one level deeper; a failure gets `segment` prepended to its path.
absl::StatusOr<c10::IValue> ReadNested(const Json& json, const TypeInfo& expected, int depth,
                                       const std::string& segment, const DocumentRef& doc);

// {"real": x, "imag": y}, or a number (widened, as tsb_any_coerce widens).
absl::StatusOr<c10::IValue> ReadComplex(const Json& json, const TypeInfo& expected);
// {"dtype", "shape", "data"[, "device"][, "requires_grad"]}.
absl::StatusOr<c10::IValue> ReadTensor(const Json& json, const TypeInfo& expected);
// A member name, or {"enum": qualified name, "member": name}.
absl::StatusOr<c10::IValue> ReadEnum(const Json& json, const TypeInfo& expected);
// What the JSON is by itself, for `Any`: null -> None, true -> bool,
// 1 -> int, 1.5 -> float, "x" -> str, [...] -> List[Any],
// {...} -> Dict[str, Any].
absl::StatusOr<c10::IValue> Infer(const Json& json, int depth);

}  // namespace tsb::text

#endif  // TSBRIDGE_CORE_TEXT_JSON_READ_H_
