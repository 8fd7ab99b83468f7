#include "core/runtime/archive_version.h"

#include <caffe2/serialize/versions.h>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "core/compat/torch_compat.h"

namespace tsb::runtime {
namespace {

// The number after `marker` in `text`, if any.
std::optional<uint64_t> NumberAfter(absl::string_view text, absl::string_view marker) {
  size_t at = text.find(marker);
  if (at == absl::string_view::npos) return std::nullopt;
  absl::string_view rest = text.substr(at + marker.size());
  size_t end = rest.find_first_not_of("0123456789");
  uint64_t n = 0;
  if (!absl::SimpleAtoi(rest.substr(0, end), &n)) return std::nullopt;
  return n;
}

}  // namespace

std::optional<absl::Status> NewerFormatError(absl::string_view torch_message) {
  // PyTorchStreamReader's words, the same in LibTorch 1.13, 2.6 and 2.14.
  std::optional<uint64_t> format =
      NumberAfter(torch_message, "Attempted to read a PyTorch file with version ");
  if (!format || *format <= caffe2::serialize::kMaxSupportedFileFormatVersion) {
    return std::nullopt;
  }
  return absl::FailedPreconditionError(absl::StrCat(
      "written by a newer PyTorch in TorchScript file format ", *format,
      " (the archive records no PyTorch version); this is LibTorch ", compat::LibTorchRelease(),
      ", which reads format versions up to ", caffe2::serialize::kMaxSupportedFileFormatVersion));
}

std::optional<absl::Status> UnknownTorchOperatorError(
    absl::string_view torch_message, absl::string_view who,
    absl::FunctionRef<std::optional<uint64_t>()> read_format) {
  constexpr absl::string_view kMarker = "Unknown builtin op: ";
  size_t at = torch_message.find(kMarker);
  if (at == absl::string_view::npos) return std::nullopt;
  absl::string_view op = torch_message.substr(at + kMarker.size());
  op = op.substr(0, op.find_first_of(". \n"));
  if (!absl::StartsWith(op, "aten::") && !absl::StartsWith(op, "prim::")) return std::nullopt;
  const std::optional<uint64_t> format = read_format();
  return absl::FailedPreconditionError(absl::StrCat(
      who, " calls the operator ", op, ", which LibTorch ", compat::LibTorchRelease(),
      " does not have: another PyTorch release wrote it (the archive records ",
      format ? absl::StrCat("TorchScript file format ", *format, " and ") : "",
      "no PyTorch version)"));
}

}  // namespace tsb::runtime
