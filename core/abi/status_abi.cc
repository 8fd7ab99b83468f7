// tsb_status: construction from absl::Status / c10::Error, and its C accessors.
#include "absl/strings/str_cat.h"
#include "core/abi/guard.h"
#include "core/errors/errors.h"

namespace tsb::abi {
namespace {

// Returned when a status cannot be allocated; tsb_status_free ignores it.
tsb_status g_out_of_memory{TSB_ERR_NO_MEMORY, "out of memory", "",
                           "out of memory", ""};

tsb_code CodeOf(const absl::Status& status) {
  if (IsTypeError(status)) return TSB_ERR_TYPE;
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument: return TSB_ERR_INVALID_ARGUMENT;
    case absl::StatusCode::kOutOfRange: return TSB_ERR_OUT_OF_RANGE;
    case absl::StatusCode::kNotFound: return TSB_ERR_NOT_FOUND;
    case absl::StatusCode::kUnimplemented: return TSB_ERR_UNSUPPORTED;
    case absl::StatusCode::kResourceExhausted: return TSB_ERR_NO_MEMORY;
    case absl::StatusCode::kAlreadyExists: return TSB_ERR_ALREADY_EXISTS;
    default: return TSB_ERR_INTERNAL;
  }
}

tsb_status* New(tsb_code code, std::string path, absl::string_view detail,
                std::string backtrace) noexcept {
  try {
    auto* s = new tsb_status{code, "", std::move(path), std::string(detail),
                             std::move(backtrace)};
    s->message = s->path.empty() ? s->detail : absl::StrCat(s->path, ": ", s->detail);
    return s;
  } catch (...) {
    return &g_out_of_memory;
  }
}

}  // namespace

tsb_status* MakeStatus(const absl::Status& status) noexcept {
  try {
    return New(CodeOf(status), PathOf(status), status.message(), "");
  } catch (...) {
    return &g_out_of_memory;
  }
}

tsb_status* MakeStatus(const c10::Error& error) noexcept {
  try {
    // The backtrace (with "Exception raised from ...") stays apart.
    return New(TSB_ERR_TORCH, "", error.what_without_backtrace(), error.backtrace());
  } catch (...) {
    return &g_out_of_memory;
  }
}

tsb_status* MakeStatus(tsb_code code, absl::string_view detail) noexcept {
  return New(code, "", detail, "");
}

absl::Status CheckArg(const void* p, const char* name) {
  if (p != nullptr) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("argument '", name, "' is NULL"));
}

}  // namespace tsb::abi

extern "C" {

tsb_code tsb_status_code(const tsb_status* s) { return s ? s->code : TSB_OK; }
const char* tsb_status_message(const tsb_status* s) { return s ? s->message.c_str() : ""; }
const char* tsb_status_path(const tsb_status* s) { return s ? s->path.c_str() : ""; }
const char* tsb_status_detail(const tsb_status* s) { return s ? s->detail.c_str() : ""; }
const char* tsb_status_backtrace(const tsb_status* s) { return s ? s->backtrace.c_str() : ""; }
void tsb_status_free(tsb_status* s) {
  if (s != &tsb::abi::g_out_of_memory) delete s;
}

}  // extern "C"
