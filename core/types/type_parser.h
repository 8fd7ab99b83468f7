// TorchScript type strings -> LibTorch types, with LibTorch's own parsers.
#ifndef TSBRIDGE_CORE_TYPES_TYPE_PARSER_H_
#define TSBRIDGE_CORE_TYPES_TYPE_PARSER_H_

#include "absl/strings/string_view.h"

#include <ATen/core/jit_type.h>

#include "absl/status/statusor.h"

namespace tsb {

// Accepts Python annotation syntax ("Dict[str, List[int]]", parsed by the
// TorchScript frontend's ScriptTypeParser) and schema syntax ("int[]",
// "Tensor?", "Dict(str, Tensor)", parsed by SchemaTypeParser). The whole
// string must be one type. ScalarType, Layout, MemoryFormat and Scalar name
// the types LibTorch's schemas use for dtype, layout, memory_format and
// numbers.
absl::StatusOr<c10::TypePtr> ParseType(absl::string_view text);

}  // namespace tsb

#endif  // TSBRIDGE_CORE_TYPES_TYPE_PARSER_H_
