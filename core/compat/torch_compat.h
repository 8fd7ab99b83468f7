// What differs between the LibTorch releases tsbridge builds against
// (docs/platforms.md): 1.13 (Debian 12) and 2.6 (Debian 13). Every version
// test in the tree is here; code elsewhere calls these and stays one copy.
#ifndef TSBRIDGE_CORE_COMPAT_TORCH_COMPAT_H_
#define TSBRIDGE_CORE_COMPAT_TORCH_COMPAT_H_

#include <memory>
#include <string>

#include <c10/util/Exception.h>
#include <torch/csrc/jit/frontend/lexer.h>
#include <torch/csrc/jit/frontend/schema_type_parser.h>
#include <torch/version.h>

#define TSB_TORCH_AT_LEAST(major, minor) \
  (TORCH_VERSION_MAJOR > (major) ||      \
   (TORCH_VERSION_MAJOR == (major) && TORCH_VERSION_MINOR >= (minor)))

namespace tsb::compat {

// The C++ backtrace of a c10::Error: a string in 1.13, a lazily symbolised
// value from 2.x on.
inline std::string ErrorBacktrace(const c10::Error& e) {
#if TSB_TORCH_AT_LEAST(2, 0)
  return e.backtrace() ? e.backtrace()->get() : std::string();
#else
  return e.backtrace();
#endif
}

// A schema-syntax type parser ("int[]", "Dict(str, Tensor)"); 2.x added
// type variables (allow_typevars), which a type string must not hold.
inline torch::jit::SchemaTypeParser SchemaTypeParserFor(torch::jit::Lexer& lexer) {
#if TSB_TORCH_AT_LEAST(2, 0)
  return torch::jit::SchemaTypeParser(lexer, /*parse_complete_tensor_types=*/false,
                                      /*allow_typevars=*/false);
#else
  return torch::jit::SchemaTypeParser(lexer, /*parse_complete_tensor_types=*/false);
#endif
}

}  // namespace tsb::compat

#endif  // TSBRIDGE_CORE_COMPAT_TORCH_COMPAT_H_
