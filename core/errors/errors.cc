// Statuses inside C++: type and torch errors, the path into a value, and the
// one translation of a thrown exception (declared in tsbridge/plugin/errors.hpp).
#include "tsbridge/plugin/errors.hpp"

#include <exception>
#include <new>

#include <c10/util/Exception.h>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "core/compat/torch_compat.h"

namespace tsb {
namespace {
constexpr absl::string_view kPathPayload = "tsbridge/path";
constexpr absl::string_view kTypeErrorPayload = "tsbridge/type_error";
// Marks a TorchError; its value is the C++ backtrace ("" when none).
constexpr absl::string_view kTorchPayload = "tsbridge/torch_error";
}  // namespace

absl::Status TypeError(absl::string_view message) {
  absl::Status status = absl::InvalidArgumentError(message);
  status.SetPayload(kTypeErrorPayload, absl::Cord("1"));
  return status;
}

bool IsTypeError(const absl::Status& status) {
  return status.GetPayload(kTypeErrorPayload).has_value();
}

absl::Status TorchError(absl::string_view message, absl::string_view backtrace) {
  absl::Status status = absl::InternalError(message);
  status.SetPayload(kTorchPayload, absl::Cord(backtrace));
  return status;
}

bool IsTorchError(const absl::Status& status) {
  return status.GetPayload(kTorchPayload).has_value();
}

std::string BacktraceOf(const absl::Status& status) {
  auto backtrace = status.GetPayload(kTorchPayload);
  return backtrace.has_value() ? std::string(*backtrace) : std::string();
}

absl::Status CurrentExceptionStatus(bool from_torch) noexcept {
  try {
    try {
      throw;
    } catch (const c10::Error& e) {  // before std::exception, which it derives from
      // The backtrace (with "Exception raised from ...") stays apart.
      return TorchError(e.what_without_backtrace(), compat::ErrorBacktrace(e));
    } catch (const std::bad_alloc&) {
      return absl::ResourceExhaustedError("out of memory");
    } catch (const std::exception& e) {
      return from_torch ? TorchError(e.what()) : absl::InternalError(e.what());
    } catch (...) {
      return absl::InternalError("unknown C++ exception");
    }
  } catch (...) {  // building the status itself failed: no message, no allocation
    return absl::Status(absl::StatusCode::kResourceExhausted, "");
  }
}

absl::Status WithPath(absl::Status status, absl::string_view segment) {
  if (status.ok()) return status;
  auto old = status.GetPayload(kPathPayload);
  absl::Cord path(segment);
  if (old.has_value()) {
    path.Append(absl::string_view(kPathArrow.data(), kPathArrow.size()));
    path.Append(*old);
  }
  status.SetPayload(kPathPayload, std::move(path));
  return status;
}

absl::Status WithCall(absl::Status status, absl::string_view function) {
  if (status.ok()) return status;
  auto old = status.GetPayload(kPathPayload);
  absl::Cord path(absl::StrCat(function, "()"));
  if (old.has_value()) {
    path.Append(": ");
    path.Append(*old);
  }
  status.SetPayload(kPathPayload, std::move(path));
  return status;
}

std::string PathOf(const absl::Status& status) {
  auto path = status.GetPayload(kPathPayload);
  return path.has_value() ? std::string(*path) : std::string();
}

}  // namespace tsb
