// tsb_status: construction from absl::Status / c10::Error, and its C accessors.
#include <memory>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "core/abi/guard.h"
#include "tsbridge/kind_codec.hpp"

namespace tsb::abi {
namespace {

// Returned when a status cannot be allocated; tsb_status_free ignores it.
tsb_status g_out_of_memory{TSB_ERR_NO_MEMORY, "out of memory", "",
                           "out of memory", ""};

// Marks an absl::Status that stands for a c10::Error a callback reported.
constexpr absl::string_view kTorchPayload = "tsbridge/torch_error";

tsb_code CodeOf(const absl::Status& status) {
  if (IsTypeError(status)) return TSB_ERR_TYPE;
  if (status.GetPayload(kTorchPayload).has_value()) return TSB_ERR_TORCH;
  switch (status.code()) {
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

tsb_status* MakeStatus(tsb_code code, absl::string_view detail,
                       absl::string_view path) noexcept {
  try {
    return New(code, std::string(path), detail, "");
  } catch (...) {
    return &g_out_of_memory;
  }
}

absl::Status TakeStatus(tsb_status* status) {
  if (status == nullptr) return absl::OkStatus();
  std::unique_ptr<tsb_status, void (*)(tsb_status*)> owned(status, tsb_status_free);
  absl::Status out;
  switch (status->code) {
    case TSB_ERR_TYPE: out = TypeError(status->detail); break;
    case TSB_ERR_INVALID_ARGUMENT: out = absl::InvalidArgumentError(status->detail); break;
    case TSB_ERR_OUT_OF_RANGE: out = absl::OutOfRangeError(status->detail); break;
    case TSB_ERR_NOT_FOUND: out = absl::NotFoundError(status->detail); break;
    case TSB_ERR_UNSUPPORTED: out = absl::UnimplementedError(status->detail); break;
    case TSB_ERR_NO_MEMORY: out = absl::ResourceExhaustedError(status->detail); break;
    case TSB_ERR_ALREADY_EXISTS: out = absl::AlreadyExistsError(status->detail); break;
    case TSB_ERR_TORCH:
      out = absl::InternalError(status->detail);
      out.SetPayload(kTorchPayload, absl::Cord("1"));
      break;
    default: out = absl::InternalError(status->detail); break;
  }
  if (!status->path.empty()) out = WithPath(std::move(out), status->path);
  return out;
}

absl::Status CheckArg(const void* p, const char* name) {
  if (p != nullptr) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("argument '", name, "' is NULL"));
}

}  // namespace tsb::abi

namespace tsb {
tsb_status* ToTsbStatus(const absl::Status& status) noexcept {
  return status.ok() ? nullptr : abi::MakeStatus(status);
}
}  // namespace tsb

extern "C" {

tsb_code tsb_status_get_code(const tsb_status* s) { return s ? s->code : TSB_OK; }
const char* tsb_status_get_message(const tsb_status* s) { return s ? s->message.c_str() : ""; }
const char* tsb_status_get_path(const tsb_status* s) { return s ? s->path.c_str() : ""; }
const char* tsb_status_get_detail(const tsb_status* s) { return s ? s->detail.c_str() : ""; }
const char* tsb_status_get_backtrace(const tsb_status* s) { return s ? s->backtrace.c_str() : ""; }
tsb_status* tsb_status_new(tsb_code code, const char* message) {
  return tsb::abi::MakeStatus(code == TSB_OK ? TSB_ERR_INTERNAL : code,
                              message != nullptr ? message : "");
}

tsb_status* tsb_status_new_at(tsb_code code, const char* path, const char* detail) {
  return tsb::abi::MakeStatus(code == TSB_OK ? TSB_ERR_INTERNAL : code,
                              detail != nullptr ? detail : "", path != nullptr ? path : "");
}

void tsb_status_free(tsb_status* s) {
  if (s != &tsb::abi::g_out_of_memory) delete s;
}

}  // extern "C"
