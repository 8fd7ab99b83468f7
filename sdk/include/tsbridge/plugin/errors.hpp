// Errors in tsbridge's C++ (the core, kind codecs, plugins): absl::Status
// with a path into the value and a tsbridge code, and the one place where
// C++ exceptions become statuses. Implemented in libtsbridge.so
// (core/errors/); reached by plugins through tsbridge/plugin/kind_codec.hpp.
//
// A status's code at the ABI follows from it: a TypeError is TSB_ERR_TYPE, a
// TorchError TSB_ERR_TORCH, and the Abseil code maps the rest
// (docs/abi.md, "paths and messages").
#ifndef TSBRIDGE_ERRORS_HPP_
#define TSBRIDGE_ERRORS_HPP_

#include <cstddef>
#include <string>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "tsbridge/path.hpp"
#include "tsbridge/tsbridge.h"

namespace tsb {

// A value does not match the type it was expected to have.
absl::Status TypeError(absl::string_view message);
bool IsTypeError(const absl::Status& status);

// An error LibTorch raised (code TSB_ERR_TORCH). `backtrace` (a c10::Error's
// C++ backtrace) is kept apart from the message, for tsb_status_get_backtrace.
absl::Status TorchError(absl::string_view message, absl::string_view backtrace = "");
bool IsTorchError(const absl::Status& status);
std::string BacktraceOf(const absl::Status& status);  // "" when it has none

// Prepends one path segment to a failed status (no-op on OK).
absl::Status WithPath(absl::Status status, absl::string_view segment);
// Prepends a call, "name()", joined to the rest of the path by ": ", as in
// "forward(): argument 'p' → [3]".
absl::Status WithCall(absl::Status status, absl::string_view function);
// The " → "-joined path of a status, "" when it has none.
std::string PathOf(const absl::Status& status);

// The path segments (IndexSegment, FieldSegment, KeySegment, ...) are
// tsbridge/path.hpp's, the one spelling every host prints.

// A failed status as the tsb_status the ABI returns for it (the same code,
// path, detail and backtrace), for C++ that reports through a C callback (a
// plugin function, a registrar slot). NULL for OK; never throws.
tsb_status* ToTsbStatus(const absl::Status& status) noexcept;

// What a thrown exception stands for; call it inside a catch block only.
// c10::Error is a TorchError without its backtrace in the message,
// std::bad_alloc is RESOURCE_EXHAUSTED ("out of memory"), and any other
// exception is INTERNAL, or a TorchError when `from_torch` (a callee run
// by LibTorch: a TorchScript `raise` is a torch::jit::JITException, a
// compilation error a torch::jit::ErrorReport).
absl::Status CurrentExceptionStatus(bool from_torch = false) noexcept;

// The one "catch everything" of tsbridge: runs `body` (returning an
// absl::Status, or void) and turns whatever it throws into a status. Used by
// the ABI guard, the plugin registrar, plugin functions and the runtime.
template <typename Body>
absl::Status CatchAll(Body&& body, bool from_torch = false) noexcept {
  try {
    if constexpr (std::is_void_v<decltype(body())>) {
      body();
      return absl::OkStatus();
    } else {
      return body();
    }
  } catch (...) {
    return CurrentExceptionStatus(from_torch);
  }
}

}  // namespace tsb

// Early-return helpers (Abseil keeps its own internal).
#define TSB_RETURN_IF_ERROR(expr)                 \
  do {                                            \
    absl::Status tsb_status_ = (expr);            \
    if (!tsb_status_.ok()) return tsb_status_;    \
  } while (0)

#define TSB_CONCAT_INNER_(a, b) a##b
#define TSB_CONCAT_(a, b) TSB_CONCAT_INNER_(a, b)
#define TSB_ASSIGN_OR_RETURN(lhs, expr) \
  TSB_ASSIGN_OR_RETURN_IMPL_(TSB_CONCAT_(tsb_statusor_, __LINE__), lhs, expr)
#define TSB_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                               \
  if (!tmp.ok()) return std::move(tmp).status();   \
  lhs = std::move(tmp).value()

#endif  // TSBRIDGE_ERRORS_HPP_
