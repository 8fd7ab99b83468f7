// tsb_status, the error object of the host ABI, and its one translation
// to and from absl::Status. Only the core builds one; core/abi/status_abi.cc
// exports the accessors.
#ifndef TSBRIDGE_CORE_ERRORS_STATUS_H_
#define TSBRIDGE_CORE_ERRORS_STATUS_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "tsbridge/plugin/errors.hpp"
#include "tsbridge/tsbridge.h"

// Declared opaque in tsbridge.h.
struct tsb_status {
  tsb_code code;
  std::string message;    // "path: detail"
  std::string path;
  std::string detail;
  std::string backtrace;  // of a c10::Error, kept out of the message
};

namespace tsb {

// The ABI code of a failed status: TypeError, TorchError, then Abseil's code.
tsb_code CodeOf(const absl::Status& status);

// Each returns a new status, or a static out-of-memory status when even
// that allocation fails. Never NULL, never throws. A `code` of TSB_OK
// becomes TSB_ERR_INTERNAL (a status always reports a failure).
tsb_status* NewStatus(tsb_code code, absl::string_view path, absl::string_view detail,
                      absl::string_view backtrace = "") noexcept;
tsb_status* MakeStatus(const absl::Status& status) noexcept;  // status must be failed

// Frees a status from NewStatus/MakeStatus (the static one is kept).
void FreeStatus(tsb_status* status) noexcept;

// The absl::Status a tsb_status stands for (code, path, detail, backtrace),
// for statuses returned by code on the other side of a C call: a plugin's
// function or register, a host's trace callback. Takes ownership; NULL is OK.
absl::Status TakeStatus(tsb_status* status);

}  // namespace tsb

#endif  // TSBRIDGE_CORE_ERRORS_STATUS_H_
