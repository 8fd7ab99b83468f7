// The tsb_status accessors. The status itself, and its translation from
// absl::Status, live in core/errors/status.{h,cc}.
#include "core/errors/status.h"

extern "C" {

tsb_code tsb_status_get_code(const tsb_status* s) { return s ? s->code : TSB_OK; }
const char* tsb_status_get_message(const tsb_status* s) { return s ? s->message.c_str() : ""; }
const char* tsb_status_get_path(const tsb_status* s) { return s ? s->path.c_str() : ""; }
const char* tsb_status_get_detail(const tsb_status* s) { return s ? s->detail.c_str() : ""; }
const char* tsb_status_get_backtrace(const tsb_status* s) { return s ? s->backtrace.c_str() : ""; }

tsb_status* tsb_status_new(tsb_code code, const char* message) {
  return tsb::NewStatus(code, "", message != nullptr ? message : "");
}

tsb_status* tsb_status_new_at(tsb_code code, const char* path, const char* detail) {
  return tsb::NewStatus(code, path != nullptr ? path : "", detail != nullptr ? detail : "");
}

void tsb_status_free(tsb_status* s) { tsb::FreeStatus(s); }

}  // extern "C"
