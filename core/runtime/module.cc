// Modules: load, compile, save, list methods, call them; and methods of
// TorchScript class instances and torchbind objects, bound the same way.
#include "core/runtime/module.h"

#include <fstream>
#include <optional>
#include <sstream>

#include <caffe2/serialize/inline_container.h>
#include <torch/csrc/jit/frontend/parser.h>
#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/runtime/graph_executor.h>
#include <torch/csrc/jit/serialization/import.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/binary/pickle.h"
#include "core/object/object.h"
#include "core/plugins/deferred_plugins.h"
#include "core/runtime/aoti_package.h"
#include "core/runtime/archive_version.h"
#include "core/runtime/library_loader.h"
#include "core/runtime/module_scan.h"
#include "core/runtime/module_state.h"
#include "core/runtime/runtime.h"
#include "core/types/type_parser.h"
#include "core/types/type_registry.h"
#include "core/value/nesting.h"
#include "core/value/tensor_storage.h"

namespace tsb::runtime {

using call::Bind;
using call::Binding;
using call::HostArgs;
using call::Signature;
using call::TakeResult;

namespace {

std::string MethodNames(const c10::ClassType& type) {
  std::vector<std::string> names;
  for (const torch::jit::Function* fn : type.methods()) names.push_back(fn->name());
  return names.empty() ? "none" : absl::StrJoin(names, ", ");
}

absl::Status UnknownMethod(const c10::ClassType& type, absl::string_view method) {
  return absl::NotFoundError(absl::StrCat("no method '", method, "' in ", QualifiedName(type),
                                          "; its methods: ", MethodNames(type)));
}

// Binds, runs and converts: self first on the stack, then the arguments.
// A TorchScript exception (c10::Error) names the method too.
// `self` is None for a free function.
absl::Status Run(torch::jit::Function& fn, const Signature& sig, c10::IValue self,
                 const HostArgs& args, tsb_any* out) {
  Binding binding;
  binding.stack.reserve(1 + sig.params().size());  // one buffer: self, then the rest
  if (!self.isNone()) binding.stack.push_back(std::move(self));
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
  return plugins::DeferredPlugins::Global().ProvideNamesIn(code).status();
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
          const std::string where = PathOf(s);
          return absl::Status(s.code(), absl::StrCat(s.message(), where.empty() ? "" : " at ",
                                                     where, ", in a constant of ",
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

namespace {

// `status` as a failure to load `what`: "cannot load module \"m.pt\": ...",
// said here once for every failure (the scan's, LibTorch's importer's, the
// tensors' check), so no host adds it again (docs/cli.md). The place inside
// the module, if any, is part of what is wrong with the file: it joins the
// message. LibTorch's backtrace stays apart.
absl::Status CannotLoad(const std::string& what, const absl::Status& status) {
  const std::string where = PathOf(status);
  const std::string message =
      absl::StrCat("cannot load ", what, ": ", status.message(),
                   where.empty() ? "" : " at ", where.empty() ? "" : ShortenPath(where));
  return IsTorchError(status) ? TorchError(message, BacktraceOf(status))
                              : absl::Status(status.code(), message);
}

// The file format version an archive records, read by LibTorch's reader
// (`open` makes one); nullopt when it cannot be read.
template <typename Open>
std::optional<uint64_t> FormatVersion(Open open) {
  try {
    return open().version();
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// Scans an archive, then imports it (`import` runs torch::jit::load on a
// file or on bytes); `what` names it in errors ("module \"m.pt\"").
// `format` reads the archive's file format version for an error that may
// come from another PyTorch release (docs/install.md, "When versions clash").
template <typename Scan, typename Import, typename Format>
absl::StatusOr<tsb_module*> LoadArchive(const std::string& what, Scan scan, Import import,
                                        Format format) {
  std::optional<torch::jit::Module> module;
  absl::Status loaded = CatchAll(
      [&]() -> absl::Status {
        TSB_RETURN_IF_ERROR(scan());
        module = import();
        return CheckLoadedTensors(*module);
      },
      /*from_torch=*/true);
  if (loaded.ok()) return MakeModule(*std::move(module)).release();
  // A file format above this LibTorch's: LibTorch's reader refused it.
  if (auto newer = NewerFormatError(loaded.message())) return CannotLoad(what, *newer);
  const std::string code = absl::StrCat("cannot load ", what, ": its code");
  // An aten:: or prim:: operator this LibTorch lacks: another release's code.
  if (auto unknown = UnknownTorchOperatorError(loaded.message(), code, format)) {
    return *unknown;
  }
  // "Unknown builtin op: torchvision::nms" names no library to load.
  if (auto missing = MissingOperatorError(loaded.message(), code)) return *missing;
  return CannotLoad(what, loaded);
}

// Whether every top-level def of `source` takes `self` first: then they are
// methods (Module.define), else free functions (torch.jit.CompilationUnit).
// A source that does not parse counts as methods: Module.define reports it.
bool DefinesMethods(const std::string& source) {
  try {
    torch::jit::Parser parser(std::make_shared<torch::jit::Source>(source));
    while (parser.lexer().cur().kind != torch::jit::TK_EOF) {
      torch::jit::Def def(parser.parseFunction(/*is_method=*/false));
      const torch::jit::List<torch::jit::Param> params = def.decl().params();
      if (params.empty() || params[0].ident().name() != "self") return false;
    }
  } catch (const std::exception&) {
    return true;
  }
  return true;
}

absl::Status CompileError(absl::Status status) {
  if (auto missing = MissingOperatorError(status.message(), "the source")) {
    return *missing;
  }
  return status;
}

absl::Status NotSavable(const tsb_module& module) {
  if (module.is_package) {
    return absl::FailedPreconditionError(
        "an AOTInductor package is saved by the Python that compiled it, not by "
        "tsb_module_save or tsb_module_write");
  }
  if (module.free_functions != nullptr) {
    return absl::FailedPreconditionError(
        "a module of free functions (compiled from defs without `self`) cannot be saved: a "
        "TorchScript archive holds a module; compile the defs as methods (`self` first) to "
        "save them");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<tsb_module*> LoadModule(const char* path) {
  // torch::jit::load's own error for a missing file is an errno dump.
  if (!std::ifstream(path).good()) {
    return absl::NotFoundError(absl::StrCat("cannot open module file \"", path, "\""));
  }
  if (IsAotiPackagePath(path)) return LoadAotiPackage(path);
  return LoadArchive(
      absl::StrCat("module \"", path, "\""),
      [&] { return ScanModuleArchive(path, LoadDeferredPluginsFor); },
      [&] { return torch::jit::load(path); },
      [&] { return FormatVersion([&] { return caffe2::serialize::PyTorchStreamReader(path); }); });
}

absl::StatusOr<tsb_module*> ReadModule(const char* data, size_t size) {
  if (size == 0) return absl::InvalidArgumentError("no bytes to read a module from (size is 0)");
  return LoadArchive(
      absl::StrCat("a module from ", size, " bytes"),
      [&] { return ScanModuleArchive(data, size, LoadDeferredPluginsFor); },
      [&] { return torch::jit::load(binary::MemoryReader(data, size)); },
      [&] {
        return FormatVersion(
            [&] { return caffe2::serialize::PyTorchStreamReader(binary::MemoryReader(data, size)); });
      });
}

absl::StatusOr<tsb_module*> CompileModule(const char* source) {
  // A real module type (not a bare CompilationUnit) so that the result can
  // be saved with tsb_module_save and loaded back like any .pt file.
  TSB_RETURN_IF_ERROR(LoadDeferredPluginsFor(source));
  torch::jit::Module module(c10::QualifiedName("__torch__.tsb.Compiled"));
  if (DefinesMethods(source)) {
    // A compilation error is a torch::jit::ErrorReport: a TorchError too.
    absl::Status defined = CatchAll(
        [&] { module.define(source, MakeTypeResolver()); }, /*from_torch=*/true);
    if (!defined.ok()) return CompileError(std::move(defined));
    return MakeModule(std::move(module)).release();
  }
  auto unit = std::make_shared<torch::jit::CompilationUnit>();
  std::vector<torch::jit::Function*> functions;
  absl::Status defined = CatchAll(
      [&] { functions = unit->define(c10::nullopt, source, MakeTypeResolver(), nullptr); },
      /*from_torch=*/true);
  if (!defined.ok()) return CompileError(std::move(defined));
  std::unique_ptr<tsb_module> wrapped = MakeModule(std::move(module));
  wrapped->free_functions = std::move(unit);
  for (torch::jit::Function* fn : functions) {
    wrapped->methods.push_back(
        {fn->name(), fn, Signature::Make(fn->getSchema(), fn->name(), /*skip_self=*/false, "",
                             /*describe=*/true),
         nullptr, /*takes_self=*/false});
  }
  return wrapped.release();
}

absl::Status SaveModule(const tsb_module& module, const char* path) {
  TSB_RETURN_IF_ERROR(NotSavable(module));
  module.module.save(path);
  return absl::OkStatus();
}

absl::Status SaveModuleForMobile(const tsb_module& module, const char* path) {
  TSB_RETURN_IF_ERROR(NotSavable(module));
  // What the lite interpreter cannot run (an operator it lacks) is
  // LibTorch's error, a TorchError.
  return CatchAll([&] { module.module._save_for_mobile(path); }, /*from_torch=*/true);
}

absl::StatusOr<std::string> WriteModule(const tsb_module& module) {
  TSB_RETURN_IF_ERROR(NotSavable(module));
  std::ostringstream out;
  module.module.save(out);
  return std::move(out).str();
}

absl::StatusOr<std::string> WriteObject(const c10::IValue& object) {
  if (!object.isObject()) {
    return TypeError(absl::StrCat("expected an object (a TorchScript class instance), got ",
                                  DescribeValue(object)));
  }
  // torch::jit::Module's serializer writes the code of every class its
  // attributes' types name: the holder carries the object's class along.
  std::ostringstream out;
  TSB_RETURN_IF_ERROR(CatchAll(
      [&] {
        torch::jit::Module holder{c10::QualifiedName(kObjectHolder)};
        holder.register_attribute("object", object.type(), object);
        holder.save(out);
      },
      /*from_torch=*/true));
  return std::move(out).str();
}

absl::StatusOr<c10::IValue> ReadObject(const char* data, size_t size) {
  TSB_ASSIGN_OR_RETURN(tsb_module * read, ReadModule(data, size));
  std::unique_ptr<tsb_module> module(read);
  const c10::ClassTypePtr& type = module->module.type();
  const std::string name = QualifiedName(*type);
  if (name != kObjectHolder || !type->hasAttribute("object")) {
    return TypeError(absl::StrCat("expected the archive of an object (a module ", kObjectHolder,
                                  " with an attribute `object`), got a module of class ", name));
  }
  // The object keeps its class's compilation unit alive, not the module's.
  return module->module.attr("object");
}

void FreeModule(tsb_module* module) noexcept { delete module; }

size_t NumMethods(const tsb_module& module) { return module.methods.size(); }

absl::StatusOr<const TypeInfo*> ParseModuleType(const tsb_module& module,
                                                absl::string_view annotation) {
  if (module.is_package) return ParseAndIntern(annotation);  // declares no types
  // The module's own compilation unit names its classes, NamedTuples and
  // Enums; not cached by text, since another module's "__torch__.Point" may
  // be another type.
  const std::shared_ptr<torch::jit::CompilationUnit> unit =
      module.module._ivalue()->compilation_unit();
  const TypeNameLookup lookup = [&unit](const std::string& name) -> c10::TypePtr {
    return unit->get_type(c10::QualifiedName(name));
  };
  TSB_ASSIGN_OR_RETURN(c10::TypePtr type, ParseType(annotation, &lookup));
  return TypeRegistry::Global().Intern(type);
}

absl::Status DescribeMethod(const tsb_module& module, size_t i, tsb_schema_info* out) {
  if (i >= module.methods.size()) {
    return absl::OutOfRangeError(absl::StrCat("method index ", i, " out of range: the module has ",
                                              module.methods.size(), " methods"));
  }
  module.methods[i].signature->Describe(out);
  return absl::OkStatus();
}

namespace {

absl::Status Call(const tsb_module& module, const tsb_module::Method& m, const HostArgs& args,
                  tsb_any* out) {
  if (m.aoti != nullptr) return CallAotiModel(*m.aoti, *m.signature, args, out);
  c10::IValue self = m.takes_self ? c10::IValue(module.module._ivalue()) : c10::IValue();
  return Run(*m.function, *m.signature, std::move(self), args, out);
}

}  // namespace

absl::Status CallMethodAt(const tsb_module& module, size_t i, const HostArgs& args,
                          tsb_any* out) {
  if (i >= module.methods.size()) {
    return absl::OutOfRangeError(absl::StrCat("expected a method index below ",
                                              module.methods.size(), " (the module's methods), got ", i));
  }
  return Call(module, module.methods[i], args, out);
}

absl::Status CallMethod(const tsb_module& module, absl::string_view method,
                        const HostArgs& args, tsb_any* out) {
  for (const tsb_module::Method& m : module.methods) {
    if (m.name == method) return Call(module, m, args, out);
  }
  if (module.is_package) {
    std::vector<std::string> names;
    for (const tsb_module::Method& m : module.methods) names.push_back(m.name);
    return absl::NotFoundError(absl::StrCat("no method '", method, "' in the package; its models: ",
                                            absl::StrJoin(names, ", ")));
  }
  return UnknownMethod(*module.module.type(), method);
}

absl::StatusOr<std::string> GraphFor(const tsb_module& module, absl::string_view method,
                                     const HostArgs& args) {
  if (module.is_package) {
    return absl::FailedPreconditionError(
        "an AOTInductor package (.pt2) has no TorchScript graph (docs/export.md)");
  }
  tsb_any result{};
  TSB_RETURN_IF_ERROR(CallMethod(module, method, args, &result));
  Release(result);
  // What PyTorch's graph_for falls back to: the graph this thread's executor
  // ran last, optimized for these arguments (the method's, run outermost).
  std::shared_ptr<torch::jit::Graph> graph = torch::jit::lastExecutedOptimizedGraph();
  if (graph == nullptr) {
    return absl::InternalError(absl::StrCat("method '", method, "' ran no graph"));
  }
  return graph->toString();
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
