// TorchScript type strings -> LibTorch types, with LibTorch's own parsers.
#ifndef TSBRIDGE_CORE_TYPES_TYPE_PARSER_H_
#define TSBRIDGE_CORE_TYPES_TYPE_PARSER_H_

#include "absl/strings/string_view.h"

#include <ATen/core/jit_type.h>

#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace torch::jit {
struct Resolver;
}  // namespace torch::jit

namespace tsb {

// Accepts Python annotation syntax ("Dict[str, List[int]]", parsed by the
// TorchScript frontend's ScriptTypeParser) and schema syntax ("int[]",
// "Tensor?", "Dict(str, Tensor)", parsed by SchemaTypeParser). The whole
// string must be one type. ScalarType, Layout, MemoryFormat and Scalar name
// the types LibTorch's schemas use for dtype, layout, memory_format and
// numbers. Qualified names ("tsbridge.tensor_pair") resolve to the types
// plugins registered, and first through `extra` when given (a plugin's own
// types while it registers).
using TypeNameLookup = std::function<c10::TypePtr(const std::string& name)>;
absl::StatusOr<c10::TypePtr> ParseType(absl::string_view text,
                                       const TypeNameLookup* extra = nullptr);

// The interned type an annotation names (tsb_type_parse), cached by text: a
// repeated parse is one lock-free lookup, not a trip through LibTorch's
// (serialised) parsers.
struct TypeInfo;
absl::StatusOr<const TypeInfo*> ParseAndIntern(absl::string_view text);

// A name TorchScript source can spell: ASCII letters, digits and _, not
// starting with a digit.
bool IsIdentifier(absl::string_view name);

// A class's qualified name ("__torch__.Counter"), as errors and the JSON
// form print it: repr_str() would add the compilation unit's address.
std::string QualifiedName(const c10::ClassType& type);

// The same names for TorchScript source compiled by tsbridge
// (tsb_module_compile), on top of LibTorch's native resolver: a signature
// may use "tsbridge.tensor_pair" or "ScalarType".
std::shared_ptr<torch::jit::Resolver> MakeTypeResolver();

}  // namespace tsb

#endif  // TSBRIDGE_CORE_TYPES_TYPE_PARSER_H_
