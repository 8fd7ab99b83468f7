// AOTInductor packages (.pt2, torch._inductor.aoti_compile_and_package):
// loaded as a tsb_module whose methods are the package's models, called
// through the same Bind and TakeResult as TorchScript methods, with the
// pytree specs (tree_spec.h) as their signatures (docs/export.md). Built
// with LibTorch 2.6 or newer; with an older LibTorch, loading one is a clear
// error. Light header: the AOTI headers stay in aoti_package.cc.
#ifndef TSBRIDGE_CORE_RUNTIME_AOTI_PACKAGE_H_
#define TSBRIDGE_CORE_RUNTIME_AOTI_PACKAGE_H_

#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/call/call.h"
#include "tsbridge/tsbridge.h"

namespace tsb::runtime {

// One model of a package: its loader and its specs. Defined in the .cc.
struct AotiModel;

// PyTorch's own rule (torch._inductor.aoti_load_package): a package is a
// file whose name ends in ".pt2".
bool IsAotiPackagePath(absl::string_view path);

// A new tsb_module holding every model of the package at `path`; the model
// named "model" (the one aoti_compile_and_package writes) is the method
// `forward`, any other keeps its name.
absl::StatusOr<tsb_module*> LoadAotiPackage(const char* path);

// Flattens the bound arguments by the model's input spec, runs it and
// rebuilds the outputs by its output spec.
absl::Status CallAotiModel(const AotiModel& model, const call::Signature& sig,
                           const call::HostArgs& args, tsb_any* out);

}  // namespace tsb::runtime

#endif  // TSBRIDGE_CORE_RUNTIME_AOTI_PACKAGE_H_
