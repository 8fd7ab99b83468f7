// What a TorchScript archive records about the PyTorch that wrote it, and the
// refusals that name it beside this LibTorch (docs/install.md, "When versions
// clash"). torch.jit.save records no PyTorch version: only the file format
// version (the `version` or `.data/version` record), which LibTorch's reader
// refuses above its maximum (caffe2::serialize::kMaxSupportedFileFormatVersion).
#ifndef TSBRIDGE_CORE_RUNTIME_ARCHIVE_VERSION_H_
#define TSBRIDGE_CORE_RUNTIME_ARCHIVE_VERSION_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace tsb::runtime {

// When `torch_message` is LibTorch's reader refusing a file format version
// above its maximum ("Attempted to read a PyTorch file with version 11, but
// the maximum supported version for reading is 10 ..."): the refusal in
// tsbridge's words, naming both versions: `written by a newer PyTorch in
// TorchScript file format 11 (the archive records no PyTorch version); this
// is LibTorch 1.13, which reads format versions up to 10`. Else nullopt.
std::optional<absl::Status> NewerFormatError(absl::string_view torch_message);

// When `torch_message` says the archive's code calls an operator of
// LibTorch's own namespaces (aten::, prim::) that this LibTorch lacks
// ("Unknown builtin op: aten::scaled_dot_product_attention"): an error naming
// the operator, this LibTorch and what the archive records (`format()`,
// its file format version, when it reads). `who` is what calls it ("its code").
// Else nullopt: another namespace is a library to load (MissingOperatorError).
// `format` is read only then.
std::optional<absl::Status> UnknownTorchOperatorError(
    absl::string_view torch_message, absl::string_view who,
    absl::FunctionRef<std::optional<uint64_t>()> format);

}  // namespace tsb::runtime

#endif  // TSBRIDGE_CORE_RUNTIME_ARCHIVE_VERSION_H_
