// The guard around every exported function (cpp11's BEGIN/END, as a
// function): whatever the body returns or throws becomes a tsb_status, so
// no exception ever crosses the C ABI. The translation lives in
// core/errors/ (CatchAll, MakeStatus); this header only joins them.
#ifndef TSBRIDGE_CORE_ABI_GUARD_H_
#define TSBRIDGE_CORE_ABI_GUARD_H_

#include "absl/status/status.h"
#include "core/errors/status.h"
#include "tsbridge/plugin/errors.hpp"
#include "tsbridge/tsbridge.h"

namespace tsb::abi {

template <typename Body>
tsb_status* Guard(Body&& body) noexcept {
  absl::Status status = CatchAll(std::forward<Body>(body));
  return status.ok() ? nullptr : MakeStatus(status);
}

// "argument 'out' is NULL" when p is NULL.
absl::Status CheckArg(const void* p, const char* name);

}  // namespace tsb::abi

#endif  // TSBRIDGE_CORE_ABI_GUARD_H_
