#include "core/plugins/function_registry.h"

#include <ATen/core/stack.h>

#include "absl/strings/str_cat.h"
#include "core/abi/guard.h"
#include "core/types/type_registry.h"

namespace tsb {

FunctionRegistry& FunctionRegistry::Global() {
  static FunctionRegistry* const registry = new FunctionRegistry();  // never destroyed
  return *registry;
}

const PluginFunction* FunctionRegistry::Find(absl::string_view name) const noexcept {
  return functions_.Find(name);
}

namespace {

tsb_argument_info ArgumentInfo(const std::string& name, const std::string& annotation,
                               const c10::TypePtr& type) {
  tsb_argument_info info{};
  info.struct_size = sizeof(tsb_argument_info);
  info.name = name.c_str();
  info.annotation = annotation.c_str();
  absl::StatusOr<const TypeInfo*> interned = TypeRegistry::Global().Intern(type);
  info.type_index = interned.ok() ? (*interned)->index : TSB_TYPE_INVALID;
  return info;
}

std::shared_ptr<const FunctionDescription> MakeDescription(const PluginFunction& f) {
  auto d = std::make_shared<FunctionDescription>();
  d->annotations.reserve(f.arg_types.size() + 1);  // no reallocation: infos point in
  for (const c10::TypePtr& t : f.arg_types) d->annotations.push_back(t->annotation_str());
  d->annotations.push_back(f.return_type->annotation_str());
  static const std::string kNoName;
  for (size_t i = 0; i < f.arg_types.size(); ++i) {
    d->arguments.push_back(ArgumentInfo(f.arg_names[i], d->annotations[i], f.arg_types[i]));
  }
  d->returns.push_back(ArgumentInfo(kNoName, d->annotations.back(), f.return_type));
  return d;
}

}  // namespace

absl::Status FunctionRegistry::Register(PluginFunction function) {
  function.description = MakeDescription(function);
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
  absl::Status called;
  try {
    called = abi::TakeStatus(function.fn(function.data, &stack));
  } catch (const c10::Error& e) {
    called = abi::TakeStatus(tsb_status_new(TSB_ERR_TORCH, e.what_without_backtrace()));
  } catch (const std::exception& e) {
    called = absl::InternalError(e.what());
  } catch (...) {
    called = absl::InternalError("unknown C++ exception");
  }
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

void FunctionRegistry::Describe(const PluginFunction& function, tsb_schema_info* out) {
  static const char kNoOverload[] = "";
  const FunctionDescription& d = *function.description;
  out->name = function.name.c_str();
  out->overload_name = kNoOverload;
  out->schema = function.schema.c_str();
  out->num_arguments = d.arguments.size();
  out->arguments = d.arguments.data();
  out->num_returns = d.returns.size();
  out->returns = d.returns.data();
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
