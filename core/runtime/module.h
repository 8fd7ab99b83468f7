// tsb_module: a torch::jit::Module and its methods, prepared for calls.
// Heavy header (torch/csrc/jit/api/module.h): only module.cc and trace.cc
// include it.
#ifndef TSBRIDGE_CORE_RUNTIME_MODULE_H_
#define TSBRIDGE_CORE_RUNTIME_MODULE_H_

#include <memory>
#include <string>
#include <vector>

#include <torch/csrc/jit/api/module.h>

#include "absl/container/node_hash_set.h"

#include "core/call/call.h"

namespace tsb::runtime {
struct AotiModel;  // core/runtime/aoti_package.h
}  // namespace tsb::runtime

// Declared opaque in tsbridge.h. Immutable once made: concurrent calls only
// read it (TorchScript's own executors synchronise their first runs).
struct tsb_module {
  struct Method {
    std::string name;
    torch::jit::Function* function = nullptr;  // owned by the module's compilation unit
    std::unique_ptr<tsb::call::Signature> signature;
    // Set for a model of an AOTInductor package instead of `function`.
    std::shared_ptr<const tsb::runtime::AotiModel> aoti;
    // A free function (tsb_module_compile of defs without `self`) runs
    // without the module as its first argument.
    bool takes_self = true;
  };
  // Empty (no object: any use asserts) for an AOTInductor package.
  torch::jit::Module module;
  std::vector<Method> methods;  // in the class's order
  // Dotted names hosts read (module_state.cc), pointing into `names`: they
  // live as long as the module, also after tsb_module_set_parameter relists.
  std::vector<const std::string*> parameter_names, buffer_names, child_names;
  absl::node_hash_set<std::string> names;

  // A .pt2 package's models have no TorchScript module behind them.
  bool is_package = false;
  // Free functions live in a compilation unit of their own, not in the
  // (empty) module's class: set when the methods are such functions.
  std::shared_ptr<torch::jit::CompilationUnit> free_functions;
};

namespace tsb::runtime {

// Wraps `module`, preparing the signature of each of its methods.
std::unique_ptr<tsb_module> MakeModule(torch::jit::Module module);

}  // namespace tsb::runtime

#endif  // TSBRIDGE_CORE_RUNTIME_MODULE_H_
