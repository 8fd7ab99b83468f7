#include "core/plugins/function_registry.h"

#include <ATen/core/stack.h>

#include "absl/strings/str_cat.h"
#include "core/errors/status.h"
#include "core/types/type_registry.h"

namespace tsb {

FunctionRegistry& FunctionRegistry::Global() {
  static FunctionRegistry* const registry = new FunctionRegistry();  // never destroyed
  return *registry;
}

const PluginFunction* FunctionRegistry::Find(absl::string_view name) const noexcept {
  return functions_.Find(name);
}

absl::Status FunctionRegistry::Register(PluginFunction function) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::string name = function.name;
  auto [stored, inserted] = functions_.Insert(std::move(name), std::move(function));
  if (!inserted) {
    return absl::AlreadyExistsError(absl::StrCat(
        "function '", stored->name, "' is already registered by ", stored->plugin));
  }
  return absl::OkStatus();
}

absl::Status FunctionRegistry::Call(const PluginFunction& function, const tsb_any* args,
                                    size_t n, tsb_any* out) {
  if (n != function.arg_types.size()) {
    return WithCall(absl::InvalidArgumentError(absl::StrCat(
                        "expected ", function.arg_types.size(), " arguments, got ", n)),
                    function.name);
  }
  TypeRegistry& types = TypeRegistry::Global();
  torch::jit::Stack stack;
  stack.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    absl::StatusOr<c10::IValue> arg = ToIValue(args[i]);
    if (arg.ok()) {
      absl::StatusOr<const TypeInfo*> type = types.Intern(function.arg_types[i]);
      arg = type.ok() ? CoerceTo(*arg, **type) : type.status();
    }
    if (!arg.ok()) {
      return WithCall(WithPath(arg.status(), absl::StrCat("argument '", function.arg_names[i], "'")),
                      function.name);
    }
    stack.push_back(*std::move(arg));
  }
  // A function written without the SDK may still throw: name it all the same.
  absl::Status called = CatchAll([&] { return TakeStatus(function.fn(function.data, &stack)); });
  TSB_RETURN_IF_ERROR(WithCall(std::move(called), function.name));
  if (stack.size() != 1) {
    return WithCall(absl::InternalError(absl::StrCat(
                        "left ", stack.size(), " values on the stack instead of 1")),
                    function.name);
  }
  TSB_ASSIGN_OR_RETURN(const TypeInfo* result, types.Intern(function.return_type));
  // The declared type, not the value's own: a plain tuple becomes the record
  // the function was registered to return (a no-op when already typed).
  absl::StatusOr<c10::IValue> typed = CoerceTo(stack.back(), *result);
  if (!typed.ok()) return WithCall(WithPath(typed.status(), "result"), function.name);
  return WithCall(ToBoundary(*std::move(typed), *result, out), function.name);
}

std::string FormatSchema(const std::string& name, const std::vector<std::string>& arg_names,
                         const std::vector<c10::TypePtr>& arg_types,
                         const c10::TypePtr& return_type) {
  std::string schema = absl::StrCat(name, "(");
  for (size_t i = 0; i < arg_names.size(); ++i) {
    absl::StrAppend(&schema, i ? ", " : "", arg_types[i]->annotation_str(), " ", arg_names[i]);
  }
  absl::StrAppend(&schema, ") -> ", return_type->annotation_str());
  return schema;
}

}  // namespace tsb
