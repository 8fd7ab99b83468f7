// tsb_module: a torch::jit::Module and its methods, prepared for calls.
// Heavy header (torch/csrc/jit/api/module.h): only module.cc and trace.cc
// include it.
#ifndef TSBRIDGE_CORE_RUNTIME_MODULE_H_
#define TSBRIDGE_CORE_RUNTIME_MODULE_H_

#include <memory>
#include <string>
#include <vector>

#include <torch/csrc/jit/api/module.h>

#include "core/runtime/call.h"

// Declared opaque in tsbridge.h. Immutable once made: concurrent calls only
// read it (TorchScript's own executors synchronise their first runs).
struct tsb_module {
  struct Method {
    torch::jit::Function* function;  // owned by the module's compilation unit
    std::unique_ptr<tsb::runtime::Signature> signature;
  };
  torch::jit::Module module;
  std::vector<Method> methods;  // in the class's order
  // Dotted names hosts read (module_state.cc); they live as long as the module.
  std::vector<std::string> parameter_names, buffer_names, child_names;
};

namespace tsb::runtime {

// Wraps `module`, preparing the signature of each of its methods.
std::unique_ptr<tsb_module> MakeModule(torch::jit::Module module);

}  // namespace tsb::runtime

#endif  // TSBRIDGE_CORE_RUNTIME_MODULE_H_
