// Modules: load, compile, save, list methods, call them; and methods of
// TorchScript class instances and torchbind objects, bound the same way.
#include "core/runtime/module.h"

#include <fstream>

#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/serialization/import.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/plugins/deferred_plugins.h"
#include "core/plugins/library_loader.h"
#include "core/runtime/aoti_package.h"
#include "core/runtime/module_scan.h"
#include "core/runtime/module_state.h"
#include "core/runtime/runtime.h"
#include "core/types/type_parser.h"
#include "core/value/nesting.h"
#include "core/value/tensor_storage.h"

namespace tsb::runtime {
namespace {

std::string MethodNames(const c10::ClassType& type) {
  std::vector<std::string> names;
  for (const torch::jit::Function* fn : type.methods()) names.push_back(fn->name());
  return names.empty() ? "none" : absl::StrJoin(names, ", ");
}

absl::Status UnknownMethod(const c10::ClassType& type, absl::string_view method) {
  // The qualified name: repr_str() would add the compilation unit's address.
  std::string name = type.name().has_value() ? type.name()->qualifiedName() : type.str();
  return absl::NotFoundError(absl::StrCat("no method '", method, "' in ", name,
                                          "; its methods: ", MethodNames(type)));
}

// Binds, runs and converts: self first on the stack, then the arguments.
// A TorchScript exception (c10::Error) names the method too.
absl::Status Run(torch::jit::Function& fn, const Signature& sig, c10::IValue self,
                 const HostArgs& args, tsb_any* out) {
  Binding binding;
  binding.stack.reserve(1 + sig.params().size());  // one buffer: self, then the rest
  binding.stack.push_back(std::move(self));
  // Named by the call once, at the end: WithCall is out of line.
  absl::Status status = Bind(sig, args, &binding);
  // Checked before running: a result no codec serves would be lost work.
  if (status.ok()) status = binding.result_status;
  if (status.ok()) status = CatchAll([&] { fn.run(binding.stack); }, /*from_torch=*/true);
  if (status.ok()) status = TakeResult(sig, binding, binding.stack, out);
  return WithCall(std::move(status), sig.display());
}

// The deferred plugins whose operators or classes `code` uses, loaded before
// LibTorch's importer or compiler looks them up.
absl::Status LoadDeferredPluginsFor(absl::string_view code) {
  return DeferredPlugins::Global().ProvideNamesIn(code).status();
}

// LibTorch's importer takes tensors as the file wrote them, unchecked
// (core/value/tensor_storage.h): the module's attributes, and the constants
// its code holds (constants.pkl), are checked before anything reads them.
absl::Status CheckLoadedTensors(const torch::jit::Module& module) {
  TSB_RETURN_IF_ERROR(CheckLoaded(module._ivalue()));
  for (torch::jit::Function* fn : module._ivalue()->compilation_unit()->get_functions()) {
    auto* graph_fn = dynamic_cast<torch::jit::GraphFunction*>(fn);
    if (graph_fn == nullptr) continue;
    std::vector<torch::jit::Block*> blocks{graph_fn->graph()->block()};
    while (!blocks.empty()) {
      torch::jit::Block* block = blocks.back();
      blocks.pop_back();
      for (torch::jit::Node* node : block->nodes()) {
        for (torch::jit::Block* inner : node->blocks()) blocks.push_back(inner);
        if (node->kind() != c10::prim::Constant || node->outputs().size() != 1) continue;
        c10::optional<c10::IValue> constant = torch::jit::toIValue(node->output());
        if (!constant.has_value()) continue;
        absl::Status s = constant->isTensor() ? CheckTensorStorage(constant->toTensor())
                                              : CheckLoaded(*constant);
        if (!s.ok()) {
          return absl::Status(s.code(), absl::StrCat(s.message(), ", in a constant of ",
                                                     fn->qualname().qualifiedName()));
        }
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

std::unique_ptr<tsb_module> MakeModule(torch::jit::Module module) {
  auto wrapped = std::make_unique<tsb_module>();
  wrapped->module = std::move(module);
  for (torch::jit::Function* fn : wrapped->module.type()->methods()) {
    // getSchema() may build the schema lazily: done here, once, before any
    // concurrent call.
    wrapped->methods.push_back(
        {fn->name(), fn, Signature::Make(fn->getSchema(), fn->name(), /*skip_self=*/true, "",
                             /*describe=*/true),
         nullptr});
  }
  ListNames(*wrapped);
  return wrapped;
}

absl::StatusOr<tsb_module*> LoadModule(const char* path) {
  // torch::jit::load's own error for a missing file is an errno dump.
  if (!std::ifstream(path).good()) {
    return absl::NotFoundError(absl::StrCat("cannot open module file \"", path, "\""));
  }
  if (IsAotiPackagePath(path)) return LoadAotiPackage(path);
  if (absl::Status scan = ScanModuleArchive(path, LoadDeferredPluginsFor); !scan.ok()) {
    return scan;
  }
  try {
    torch::jit::Module module = torch::jit::load(path);
    if (absl::Status tensors = CheckLoadedTensors(module); !tensors.ok()) {
      return absl::Status(tensors.code(), absl::StrCat("cannot load module \"", path,
                                                       "\": ", tensors.message()));
    }
    return MakeModule(std::move(module)).release();
  } catch (const std::exception& e) {  // c10::Error, torch::jit::ErrorReport
    // "Unknown builtin op: torchvision::nms" names no library to load.
    if (auto missing = MissingOperatorError(
            e.what(), absl::StrCat("cannot load module \"", path, "\""))) {
      return *missing;
    }
    throw;
  }
}

absl::StatusOr<tsb_module*> CompileModule(const char* source) {
  // A real module type (not a bare CompilationUnit) so that the result can
  // be saved with tsb_module_save and loaded back like any .pt file.
  TSB_RETURN_IF_ERROR(LoadDeferredPluginsFor(source));
  torch::jit::Module module(c10::QualifiedName("__torch__.tsb.Compiled"));
  // A compilation error is a torch::jit::ErrorReport: a TorchError too.
  absl::Status defined = CatchAll(
      [&] { module.define(source, MakeTypeResolver()); }, /*from_torch=*/true);
  if (!defined.ok()) {
    if (auto missing = MissingOperatorError(defined.message(), "cannot compile the source")) {
      return *missing;
    }
    return defined;
  }
  return MakeModule(std::move(module)).release();
}

absl::Status SaveModule(const tsb_module& module, const char* path) {
  if (module.is_package) {
    return absl::FailedPreconditionError(
        "an AOTInductor package is saved by the Python that compiled it, not by tsb_module_save");
  }
  module.module.save(path);
  return absl::OkStatus();
}

void FreeModule(tsb_module* module) noexcept { delete module; }

size_t NumMethods(const tsb_module& module) { return module.methods.size(); }

absl::Status DescribeMethod(const tsb_module& module, size_t i, tsb_schema_info* out) {
  if (i >= module.methods.size()) {
    return absl::OutOfRangeError(absl::StrCat("method index ", i, " out of range: the module has ",
                                              module.methods.size(), " methods"));
  }
  module.methods[i].signature->Describe(out);
  return absl::OkStatus();
}

absl::Status CallMethod(const tsb_module& module, absl::string_view method,
                        const HostArgs& args, tsb_any* out) {
  for (const tsb_module::Method& m : module.methods) {
    if (m.name != method) continue;
    if (m.aoti != nullptr) return CallAotiModel(*m.aoti, *m.signature, args, out);
    return Run(*m.function, *m.signature, module.module._ivalue(), args, out);
  }
  if (module.is_package) {
    std::vector<std::string> names;
    for (const tsb_module::Method& m : module.methods) names.push_back(m.name);
    return absl::NotFoundError(absl::StrCat("no method '", method, "' in the package; its models: ",
                                            absl::StrJoin(names, ", ")));
  }
  return UnknownMethod(*module.module.type(), method);
}

absl::Status CallObjectMethod(const c10::IValue& object, absl::string_view method,
                              const HostArgs& args, tsb_any* out) {
  if (!object.isObject()) {
    return TypeError(absl::StrCat("expected an object, got ", DescribeValue(object)));
  }
  // Torchbind classes are ClassTypes too: their methods are
  // BuiltinOpFunctions, run the same way as compiled ones.
  c10::ClassTypePtr type = object.toObjectRef().type();
  torch::jit::Function* fn = type->findMethod(std::string(method));
  if (fn == nullptr) return UnknownMethod(*type, method);
  // Not cached: a Function lives as long as its class's compilation unit,
  // which tsbridge does not own. Interning the parameter types again is a
  // lock-free lookup.
  std::unique_ptr<Signature> sig =
      Signature::Make(fn->getSchema(), fn->name(), /*skip_self=*/true, "", /*describe=*/false);
  return Run(*fn, *sig, object, args, out);
}

}  // namespace tsb::runtime
