#include "tsbridge/kind_codec.hpp"



#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"

namespace tsb {
namespace {
constexpr absl::string_view kPathPayload = "tsbridge/path";
constexpr absl::string_view kTypeErrorPayload = "tsbridge/type_error";
constexpr absl::string_view kArrow = " \xE2\x86\x92 ";  // " → "
}  // namespace

absl::Status TypeError(absl::string_view message) {
  absl::Status status = absl::InvalidArgumentError(message);
  status.SetPayload(kTypeErrorPayload, absl::Cord("1"));
  return status;
}

bool IsTypeError(const absl::Status& status) {
  return status.GetPayload(kTypeErrorPayload).has_value();
}

absl::Status WithPath(absl::Status status, absl::string_view segment) {
  if (status.ok()) return status;
  auto old = status.GetPayload(kPathPayload);
  absl::Cord path(segment);
  if (old.has_value()) {
    path.Append(kArrow);
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

std::string IndexSegment(size_t i) { return absl::StrCat("[", i, "]"); }

std::string KeySegment(absl::string_view repr) {
  return absl::StrCat("key ", repr);
}

}  // namespace tsb
