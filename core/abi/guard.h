// The guard around every exported function (cpp11's BEGIN/END, as a
// function): whatever the body throws becomes a tsb_status, so no exception
// ever crosses the C ABI.
#ifndef TSBRIDGE_CORE_ABI_GUARD_H_
#define TSBRIDGE_CORE_ABI_GUARD_H_

#include <exception>
#include <new>
#include <string>
#include "absl/strings/string_view.h"

#include <c10/util/Exception.h>

#include "absl/status/status.h"
#include "tsbridge/tsbridge.h"

struct tsb_status {
  tsb_code code;
  std::string message;    // "path: detail"
  std::string path;
  std::string detail;
  std::string backtrace;  // of a c10::Error, kept out of the message
};

namespace tsb::abi {

// Each returns a new status, or a static out-of-memory status when even
// that allocation fails. Never NULL, never throws.
tsb_status* MakeStatus(const absl::Status& status) noexcept;
tsb_status* MakeStatus(const c10::Error& error) noexcept;
tsb_status* MakeStatus(tsb_code code, absl::string_view detail,
                       absl::string_view path = "") noexcept;

template <typename Body>
tsb_status* Guard(Body&& body) noexcept {
  try {
    absl::Status status = body();
    return status.ok() ? nullptr : MakeStatus(status);
  } catch (const c10::Error& e) {
    return MakeStatus(e);
  } catch (const std::bad_alloc&) {
    return MakeStatus(TSB_ERR_NO_MEMORY, "out of memory");
  } catch (const std::exception& e) {
    return MakeStatus(TSB_ERR_INTERNAL, e.what());
  } catch (...) {
    return MakeStatus(TSB_ERR_INTERNAL, "unknown C++ exception");
  }
}

// The absl::Status a callback's tsb_status stands for (code, path, detail);
// takes ownership of `status`. NULL is OK.
absl::Status TakeStatus(tsb_status* status);

// "argument 'out' is NULL" when p is NULL.
absl::Status CheckArg(const void* p, const char* name);

}  // namespace tsb::abi

#endif  // TSBRIDGE_CORE_ABI_GUARD_H_
