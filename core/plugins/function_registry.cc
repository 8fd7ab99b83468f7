#include "core/plugins/function_registry.h"

#include <ATen/core/function_schema.h>
#include <ATen/core/stack.h>

#include "absl/strings/str_cat.h"
#include "core/errors/status.h"
#include "core/types/type_registry.h"
#include "core/value/convert.h"

namespace tsb::plugins {
namespace {

c10::FunctionSchema SchemaOf(const PluginFunction& function) {
  std::vector<c10::Argument> arguments;
  for (const PluginParam& p : function.params) {
    arguments.emplace_back(p.name, p.type, c10::nullopt, p.default_value, p.kwarg_only);
  }
  std::vector<c10::Argument> returns{c10::Argument("", function.return_type)};
  // Registration has checked what checkSchema() asserts (defaults last).
  return c10::FunctionSchema(function.name, "", std::move(arguments), std::move(returns));
}

}  // namespace

FunctionRegistry& FunctionRegistry::Global() {
  static FunctionRegistry* const registry = new FunctionRegistry();  // never destroyed
  return *registry;
}

const PluginFunction* FunctionRegistry::Find(absl::string_view name) const noexcept {
  return functions_.Find(name);
}

absl::Status FunctionRegistry::Register(PluginFunction function) {
  for (PluginParam& p : function.params) {
    if (!p.default_value.has_value()) continue;
    TSB_ASSIGN_OR_RETURN(const TypeInfo* type, TypeRegistry::Global().Intern(p.type));
    absl::StatusOr<c10::IValue> converted = CoerceTo(*p.default_value, *type);
    if (!converted.ok()) {
      return WithPath(converted.status(), absl::StrCat("function '", function.name,
                                                       "': default of argument '", p.name, "'"));
    }
    p.default_value = *std::move(converted);
  }
  function.signature = call::Signature::Make(SchemaOf(function), function.name,
                                             /*skip_self=*/false, /*tuple_name=*/"",
                                             /*describe=*/true, /*annotation_text=*/true);
  std::lock_guard<std::mutex> lock(mutex_);
  std::string name = function.name;
  auto [stored, inserted] = functions_.Insert(std::move(name), std::move(function));
  if (!inserted) {
    return absl::AlreadyExistsError(absl::StrCat(
        "function '", stored->name, "' is already registered by ", stored->plugin));
  }
  names_.push_back(stored->name);
  return absl::OkStatus();
}

std::vector<std::string> FunctionRegistry::Names() {
  std::lock_guard<std::mutex> lock(mutex_);
  return names_;
}

namespace {

// A tuple whose type is the registered record's own TypePtr: only the SDK's
// record builders and the core build one with it, each of that type.
bool IsBuiltRecord(const c10::IValue& value, const TypeInfo& record) {
  return (record.kind == TSB_KIND_NAMEDTUPLE || record.kind == TSB_KIND_TUPLE) &&
         value.isTuple() && value.toTupleRef().type().get() == record.type.get();
}

}  // namespace

absl::Status FunctionRegistry::Call(const PluginFunction& function,
                                    const call::HostArgs& args, tsb_any* out) {
  call::Binding binding;
  // Named by the call once, at the end: WithCall is out of line.
  return WithCall(Run(function, args, binding, out), function.name);
}

absl::Status FunctionRegistry::Run(const PluginFunction& function,
                                   const call::HostArgs& args, call::Binding& binding,
                                   tsb_any* out) {
  const call::Signature& sig = *function.signature;
  TSB_RETURN_IF_ERROR(call::Bind(sig, args, &binding));
  TSB_RETURN_IF_ERROR(binding.result_status);
  torch::jit::Stack& stack = binding.stack;
  // A function written without the SDK may still throw: name it all the same.
  TSB_RETURN_IF_ERROR(CatchAll([&] { return TakeStatus(function.fn(function.data, &stack)); }));
  if (stack.size() != 1) {
    return absl::InternalError(
        absl::StrCat("left ", stack.size(), " values on the stack instead of 1"));
  }
  // The declared type, not the value's own: a plain tuple becomes the record
  // the function was registered to return. A leaf of exactly the declared
  // type (a Tensor for Tensor) is already typed: the coerce would only copy
  // it; so is a record the SDK built as the registered type itself (it does
  // so only where the codec builds exactly that type: tsb::BuildsExactly).
  if (LeafTypeIndex(stack.back()) != binding.result->index &&
      !IsBuiltRecord(stack.back(), *binding.result)) {
    absl::StatusOr<c10::IValue> typed = CoerceTo(stack.back(), *binding.result);
    if (!typed.ok()) return WithPath(typed.status(), "result");
    stack.back() = *std::move(typed);
  }
  return call::TakeResult(sig, binding, stack, out);
}

}  // namespace tsb::plugins
