#include "core/errors/status.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "tsbridge/path.hpp"

namespace tsb {
namespace {

// Returned when a status cannot be allocated; FreeStatus keeps it.
tsb_status g_out_of_memory{TSB_ERR_NO_MEMORY, "out of memory", "", "out of memory", ""};

}  // namespace

tsb_code CodeOf(const absl::Status& status) {
  if (IsTypeError(status)) return TSB_ERR_TYPE;
  if (IsTorchError(status)) return TSB_ERR_TORCH;
  switch (status.code()) {
    case absl::StatusCode::kOk: return TSB_OK;
    case absl::StatusCode::kInvalidArgument: return TSB_ERR_INVALID_ARGUMENT;
    case absl::StatusCode::kOutOfRange: return TSB_ERR_OUT_OF_RANGE;
    case absl::StatusCode::kNotFound: return TSB_ERR_NOT_FOUND;
    case absl::StatusCode::kUnimplemented:
    case absl::StatusCode::kFailedPrecondition: return TSB_ERR_UNSUPPORTED;
    case absl::StatusCode::kResourceExhausted: return TSB_ERR_NO_MEMORY;
    case absl::StatusCode::kAlreadyExists: return TSB_ERR_ALREADY_EXISTS;
    default: return TSB_ERR_INTERNAL;
  }
}

tsb_status* NewStatus(tsb_code code, absl::string_view path, absl::string_view detail,
                      absl::string_view backtrace) noexcept {
  try {
    auto* s = new tsb_status{code == TSB_OK ? TSB_ERR_INTERNAL : code, "", ShortenPath(path),
                             std::string(detail), std::string(backtrace)};
    s->message = s->path.empty() ? s->detail : absl::StrCat(s->path, ": ", s->detail);
    return s;
  } catch (...) {
    return &g_out_of_memory;
  }
}

tsb_status* MakeStatus(const absl::Status& status) noexcept {
  try {
    if (status.code() == absl::StatusCode::kResourceExhausted && status.message().empty()) {
      return &g_out_of_memory;
    }
    return NewStatus(CodeOf(status), PathOf(status), status.message(), BacktraceOf(status));
  } catch (...) {
    return &g_out_of_memory;
  }
}

void FreeStatus(tsb_status* status) noexcept {
  if (status != &g_out_of_memory) delete status;
}

absl::Status TakeStatus(tsb_status* status) {
  if (status == nullptr) return absl::OkStatus();
  std::unique_ptr<tsb_status, void (*)(tsb_status*)> owned(status, FreeStatus);
  absl::Status out;
  switch (status->code) {
    case TSB_ERR_TYPE: out = TypeError(status->detail); break;
    case TSB_ERR_INVALID_ARGUMENT: out = absl::InvalidArgumentError(status->detail); break;
    case TSB_ERR_OUT_OF_RANGE: out = absl::OutOfRangeError(status->detail); break;
    case TSB_ERR_NOT_FOUND: out = absl::NotFoundError(status->detail); break;
    case TSB_ERR_UNSUPPORTED: out = absl::UnimplementedError(status->detail); break;
    case TSB_ERR_NO_MEMORY: out = absl::ResourceExhaustedError(status->detail); break;
    case TSB_ERR_ALREADY_EXISTS: out = absl::AlreadyExistsError(status->detail); break;
    case TSB_ERR_TORCH: out = TorchError(status->detail, status->backtrace); break;
    default: out = absl::InternalError(status->detail); break;
  }
  if (!status->path.empty()) out = WithPath(std::move(out), status->path);
  return out;
}

tsb_status* ToTsbStatus(const absl::Status& status) noexcept {
  return status.ok() ? nullptr : MakeStatus(status);
}

}  // namespace tsb
