// A loaded module's state for hosts: training mode, parameters, buffers,
// children, attributes, code and graphs. Parameters and buffers cross as
// the module's own tensors (no copy), so a host's in-place SGD step under
// tsb_grad_mode_set(false) updates the module it will call next.
#include "core/runtime/module_state.h"

#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/serialization/python_print.h>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/runtime/module.h"
#include "core/types/type_parser.h"  // QualifiedName
#include "core/types/type_registry.h"
#include "core/value/convert.h"
#include "tsbridge/plugin/kind_codec.hpp"

namespace tsb::runtime {
namespace {

const std::vector<const std::string*>& NamesOf(const tsb_module& module, Slots slots) {
  switch (slots) {
    case Slots::kParameters:
      return module.parameter_names;
    case Slots::kBuffers:
      return module.buffer_names;
    case Slots::kChildren:
      break;
  }
  return module.child_names;
}

const char* SlotsLabel(Slots slots) {
  switch (slots) {
    case Slots::kParameters:
      return "parameter";
    case Slots::kBuffers:
      return "buffer";
    case Slots::kChildren:
      break;
  }
  return "child";
}

absl::Status CheckIndex(const tsb_module& module, Slots slots, size_t i) {
  const size_t n = NamesOf(module, slots).size();
  if (i < n) return absl::OkStatus();
  return absl::OutOfRangeError(absl::StrCat(SlotsLabel(slots), " index ", i,
                                            " out of range: the module has ", n));
}

absl::Status NoAttribute(const c10::ClassType& type, const std::string& name) {
  std::vector<std::string> names;
  for (size_t i = 0; i < type.numAttributes(); ++i) names.push_back(type.getAttributeName(i));
  return absl::NotFoundError(absl::StrCat("no attribute '", name, "' in ", QualifiedName(type),
                                          "; its attributes: ",
                                          names.empty() ? "none" : absl::StrJoin(names, ", ")));
}

// `value`, or its error with `where` prepended to the path.
template <typename T>
absl::StatusOr<T> At(absl::StatusOr<T> value, const std::string& where) {
  if (!value.ok()) return WithPath(value.status(), where);
  return value;
}

// What a TorchScript module has and an AOTInductor package does not.
absl::Status NoneInPackage(const tsb_module& module, absl::string_view what) {
  if (!module.is_package) return absl::OkStatus();
  return absl::FailedPreconditionError(
      absl::StrCat("an AOTInductor package (.pt2) has no ", what, " (docs/export.md)"));
}

}  // namespace

void ListNames(tsb_module& module) {
  auto intern = [&](const std::string& name) { return &*module.names.insert(name).first; };
  module.parameter_names.clear();
  module.buffer_names.clear();
  module.child_names.clear();
  for (const auto& p : module.module.named_parameters(/*recurse=*/true)) {
    module.parameter_names.push_back(intern(p.name));
  }
  for (const auto& b : module.module.named_buffers(/*recurse=*/true)) {
    module.buffer_names.push_back(intern(b.name));
  }
  for (const auto& c : module.module.named_children()) {
    module.child_names.push_back(intern(c.name));
  }
}

absl::Status SetTraining(tsb_module& module, bool training) {
  // Compiled for inference: evaluation mode is the one it has.
  if (training) TSB_RETURN_IF_ERROR(NoneInPackage(module, "training mode"));
  if (module.is_package) return absl::OkStatus();
  for (torch::jit::Module m : module.module.modules()) {
    if (auto slot = m._ivalue()->type()->findAttributeSlot("training")) {
      m._ivalue()->setSlot(*slot, training);
    }
  }
  return absl::OkStatus();
}

bool GetTraining(const tsb_module& module) {
  return !module.is_package && module.module.is_training();
}

size_t CountSlots(const tsb_module& module, Slots slots) { return NamesOf(module, slots).size(); }

absl::Status GetTensorSlot(const tsb_module& module, Slots slots, size_t i, const char** name,
                           tsb_any* out) {
  TSB_RETURN_IF_ERROR(CheckIndex(module, slots, i));
  const std::string& wanted = *NamesOf(module, slots)[i];
  // Looked up by name every time: an attribute set since loading is seen.
  auto find = [&](const auto& list) -> absl::Status {
    for (const auto& item : list) {
      if (item.name != wanted) continue;
      if (name != nullptr) *name = wanted.c_str();
      return ToBoundary(c10::IValue(item.value), out);
    }
    return absl::NotFoundError(absl::StrCat(SlotsLabel(slots), " '", wanted,
                                            "' is no longer a tensor"));
  };
  if (slots == Slots::kParameters) return find(module.module.named_parameters(true));
  return find(module.module.named_buffers(true));
}

absl::StatusOr<tsb_module*> GetChild(const tsb_module& module, size_t i, const char** name) {
  TSB_RETURN_IF_ERROR(CheckIndex(module, Slots::kChildren, i));
  const std::string& wanted = *module.child_names[i];
  if (name != nullptr) *name = wanted.c_str();
  return MakeModule(module.module.attr(wanted).toModule()).release();
}

size_t CountAttributes(const tsb_module& module) {
  return module.is_package ? 0 : module.module.type()->numAttributes();
}

absl::StatusOr<const char*> AttributeName(const tsb_module& module, size_t i) {
  TSB_RETURN_IF_ERROR(NoneInPackage(module, "attributes"));
  const c10::ClassType& type = *module.module.type();
  if (i >= type.numAttributes()) {
    return absl::OutOfRangeError(absl::StrCat("attribute index ", i,
                                              " out of range: the module has ",
                                              type.numAttributes()));
  }
  // getAttributeName returns a copy; the ClassAttribute's own name lives as
  // long as the class.
  return type.getAttributes()[i].getName().c_str();
}

absl::Status GetAttribute(const tsb_module& module, const std::string& name, tsb_any* out) {
  TSB_RETURN_IF_ERROR(NoneInPackage(module, "attributes"));
  const c10::ClassType& type = *module.module.type();
  const std::string where = absl::StrCat("attribute '", name, "'");
  if (auto slot = type.findAttributeSlot(name)) {
    TSB_ASSIGN_OR_RETURN(const TypeInfo* info,
                         At(TypeRegistry::Global().Intern(type.getAttribute(*slot)), where));
    return WithPath(ToBoundary(module.module._ivalue()->getSlot(*slot), *info, out), where);
  }
  if (auto slot = type.findConstantSlot(name)) {
    return WithPath(ToBoundary(type.getConstant(*slot), out), where);
  }
  return NoAttribute(type, name);
}

absl::Status SetAttribute(tsb_module& module, const std::string& name, const tsb_any& value) {
  TSB_RETURN_IF_ERROR(NoneInPackage(module, "attributes"));
  const c10::ClassType& type = *module.module.type();
  const std::string where = absl::StrCat("attribute '", name, "'");
  if (type.hasConstant(name)) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, " is a constant of ", QualifiedName(type), ": it cannot be set"));
  }
  auto slot = type.findAttributeSlot(name);
  if (!slot) return NoAttribute(type, name);
  const c10::TypePtr& declared = type.getAttribute(*slot);
  if (declared->is_module()) {
    return absl::UnimplementedError(absl::StrCat(where, " is a submodule: replacing one is not supported"));
  }
  TSB_ASSIGN_OR_RETURN(const TypeInfo* info, At(TypeRegistry::Global().Intern(declared), where));
  TSB_ASSIGN_OR_RETURN(c10::IValue raw, At(ToIValue(value), where));
  TSB_ASSIGN_OR_RETURN(c10::IValue coerced, At(CoerceTo(raw, *info), where));
  module.module._ivalue()->setSlot(*slot, std::move(coerced));
  return absl::OkStatus();
}

namespace {

// Parameters, then buffers, then each child's, with dotted names: the order
// of PyTorch's Module.state_dict().
void CollectState(const torch::jit::Module& module, const std::string& prefix,
                  std::vector<std::pair<std::string, at::Tensor>>* out) {
  for (const auto& p : module.named_parameters(/*recurse=*/false)) {
    out->emplace_back(prefix + p.name, p.value);
  }
  for (const auto& b : module.named_buffers(/*recurse=*/false)) {
    out->emplace_back(prefix + b.name, b.value);
  }
  for (const auto& c : module.named_children()) {
    CollectState(c.value, prefix + c.name + ".", out);
  }
}

// Dict[str, Tensor], the type of a state dict (the registry interns it on
// first use and finds it after).
absl::StatusOr<const TypeInfo*> StateDictType() {
  return TypeRegistry::Global().Intern(
      c10::DictType::create(c10::StringType::get(), c10::TensorType::get()));
}

std::string ShapeText(const at::Tensor& t) {
  return absl::StrCat("[", absl::StrJoin(t.sizes(), ", "), "]");
}

std::string QuotedKeys(const std::vector<std::string>& keys) {
  std::vector<std::string> quoted;
  for (const std::string& k : keys) quoted.push_back(absl::StrCat("\"", k, "\""));
  return absl::StrJoin(quoted, ", ");
}

}  // namespace

absl::Status GetState(const tsb_module& module, tsb_any* out) {
  TSB_RETURN_IF_ERROR(NoneInPackage(module, "parameters or buffers"));
  std::vector<std::pair<std::string, at::Tensor>> state;
  CollectState(module.module, "", &state);
  c10::Dict<std::string, at::Tensor> dict;
  for (auto& [name, tensor] : state) dict.insert(name, tensor);
  TSB_ASSIGN_OR_RETURN(const TypeInfo* type, StateDictType());
  return ToBoundary(c10::IValue(std::move(dict)), *type, out);
}

absl::Status SetState(tsb_module& module, const tsb_any& state, bool strict) {
  TSB_RETURN_IF_ERROR(NoneInPackage(module, "parameters or buffers"));
  TSB_ASSIGN_OR_RETURN(c10::IValue raw, At(ToIValue(state), ArgumentSegment("state")));
  TSB_ASSIGN_OR_RETURN(const TypeInfo* type, StateDictType());
  TSB_ASSIGN_OR_RETURN(c10::IValue coerced, At(CoerceTo(raw, *type), ArgumentSegment("state")));
  c10::Dict<std::string, at::Tensor> given = c10::impl::toTypedDict<std::string, at::Tensor>(
      std::move(coerced).toGenericDict());
  std::vector<std::pair<std::string, at::Tensor>> targets;
  CollectState(module.module, "", &targets);
  std::vector<std::string> missing, unexpected;
  std::vector<std::pair<at::Tensor, at::Tensor>> copies;  // (into, from)
  absl::flat_hash_set<std::string> known;
  for (const auto& [name, target] : targets) {
    known.insert(name);
    auto found = given.find(name);
    if (found == given.end()) {
      missing.push_back(name);
      continue;
    }
    const at::Tensor& source = found->value();
    if (!source.sizes().equals(target.sizes())) {
      absl::Status shape = TypeError(
          absl::StrCat("expected shape ", ShapeText(target), ", got ", ShapeText(source)));
      return WithPath(WithPath(std::move(shape), StrKeySegment(name)),
                      ArgumentSegment("state"));
    }
    copies.emplace_back(target, source);
  }
  for (const auto& entry : given) {
    if (!known.contains(entry.key())) unexpected.push_back(entry.key());
  }
  if (strict && (!missing.empty() || !unexpected.empty())) {
    std::string text = "the state does not match the module's:";
    if (!missing.empty()) absl::StrAppend(&text, " missing keys ", QuotedKeys(missing));
    if (!missing.empty() && !unexpected.empty()) absl::StrAppend(&text, ";");
    if (!unexpected.empty()) absl::StrAppend(&text, " unexpected keys ", QuotedKeys(unexpected));
    return absl::InvalidArgumentError(text);
  }
  at::NoGradGuard no_grad;
  for (auto& [into, from] : copies) into.copy_(from);
  return absl::OkStatus();
}

absl::Status SetParameter(tsb_module& module, const std::string& name, const tsb_any& tensor,
                          bool is_buffer) {
  TSB_RETURN_IF_ERROR(NoneInPackage(module, "parameters or buffers"));
  const std::string where = absl::StrCat(is_buffer ? "buffer '" : "parameter '", name, "'");
  TSB_ASSIGN_OR_RETURN(c10::IValue value, At(ToIValue(tensor), where));
  if (!value.isTensor()) {
    return WithPath(TypeError(absl::StrCat("expected Tensor, got ", DescribeValue(value))),
                    where);
  }
  const c10::ClassType& type = *module.module.type();
  if (auto slot = type.findAttributeSlot(name)) {
    const bool same_kind = is_buffer ? type.is_buffer(*slot) : type.is_parameter(*slot);
    if (!same_kind) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": ", QualifiedName(type), " already has an attribute '", name,
          "' that is not a ", is_buffer ? "buffer" : "parameter"));
    }
  } else if (type.hasConstant(name) || type.findMethod(name) != nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": ", QualifiedName(type),
                                                   " already has a constant or method '",
                                                   name, "'"));
  }
  TSB_RETURN_IF_ERROR(CatchAll(
      [&] {
        if (is_buffer) {
          module.module.register_buffer(name, value.toTensor());
        } else {
          module.module.register_parameter(name, value.toTensor(), /*is_buffer=*/false);
        }
      },
      /*from_torch=*/true));
  ListNames(module);
  return absl::OkStatus();
}

absl::StatusOr<std::string> Code(const tsb_module& module) {
  TSB_RETURN_IF_ERROR(NoneInPackage(module, "TorchScript code"));
  std::vector<c10::IValue> constants;
  torch::jit::PrintDepsTable deps;
  torch::jit::PythonPrint printer(constants, deps);
  printer.printNamedType(module.module.type());
  return printer.str();
}

absl::StatusOr<std::string> Graph(const tsb_module& module, const std::string& method) {
  TSB_RETURN_IF_ERROR(NoneInPackage(module, "TorchScript graph"));
  for (const tsb_module::Method& m : module.methods) {
    if (m.name != method) continue;
    auto* graph_fn = torch::jit::tryToGraphFunction(*m.function);
    if (graph_fn == nullptr) {
      return absl::UnimplementedError(absl::StrCat("method '", method, "' has no graph"));
    }
    return graph_fn->graph()->toString();
  }
  return absl::NotFoundError(absl::StrCat("no method '", method, "' in ",
                                          QualifiedName(*module.module.type())));
}

}  // namespace tsb::runtime
