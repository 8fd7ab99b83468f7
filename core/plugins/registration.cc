#include "core/plugins/registration.h"

#include <algorithm>
#include <cctype>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/errors/status.h"
#include "core/types/type_registry.h"

namespace tsb::plugins {
namespace {

// "torchsparse.tensor_pair": dot-separated identifiers.
bool IsQualifiedName(absl::string_view name) {
  if (name.empty()) return false;
  for (absl::string_view part : absl::StrSplit(name, '.')) {
    if (part.empty() || std::isdigit(static_cast<unsigned char>(part[0]))) return false;
    for (char c : part) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
    }
  }
  return true;
}

// The slots of tsb_registrar: C entry points, each behind the guard.
tsb_status* SlotAddKindCodec(void* txn, void* codec) {
  std::unique_ptr<KindCodec> owned(static_cast<KindCodec*>(codec));
  return ToTsbStatus(CatchAll([&] {
    return static_cast<Registration*>(txn)->AddKindCodec(std::move(owned));
  }));
}

tsb_status* SlotAddType(void* txn, const char* name, const char* annotation,
                        const char* const* field_names, size_t num_fields) {
  return ToTsbStatus(CatchAll([&] {
    return static_cast<Registration*>(txn)->AddType(name, annotation, field_names, num_fields);
  }));
}

tsb_status* SlotAddFunctionWithArguments(void* txn, const char* name,
                                         const tsb_plugin_argument* args, size_t num_args,
                                         const char* return_type, tsb_plugin_function fn,
                                         void* data, void (*free_data)(void*)) {
  tsb_status* status = ToTsbStatus(CatchAll([&] {
    return static_cast<Registration*>(txn)->AddFunction(name, args, num_args, return_type, fn,
                                                        data, free_data);
  }));
  // On success the staged function owns `data`; on failure nobody does.
  if (status != nullptr && free_data != nullptr) free_data(data);
  return status;
}

// Slot 2 (ABI 1.0): names and types, no defaults.
tsb_status* SlotAddFunction(void* txn, const char* name, const char* const* arg_names,
                            const char* const* arg_types, size_t num_args,
                            const char* return_type, tsb_plugin_function fn, void* data,
                            void (*free_data)(void*)) {
  std::vector<tsb_plugin_argument> args;
  tsb_status* status = ToTsbStatus(CatchAll([&]() -> absl::Status {
    if (num_args > 0 && (arg_names == nullptr || arg_types == nullptr)) {
      return absl::InvalidArgumentError(absl::StrCat("function '", name ? name : "(null)",
                                                     "': NULL argument lists"));
    }
    for (size_t i = 0; i < num_args; ++i) {
      args.push_back({arg_names[i] ? arg_names[i] : "", arg_types[i], nullptr, 0, 0});
    }
    return absl::OkStatus();
  }));
  if (status == nullptr) {
    return SlotAddFunctionWithArguments(txn, name, args.data(), args.size(), return_type, fn,
                                        data, free_data);
  }
  // On success the staged function owns `data`; on failure nobody does.
  if (status != nullptr && free_data != nullptr) free_data(data);
  return status;
}

// A default converted to its argument's type now, when its codec is known
// (int 1 for a float becomes 1.0); kept as given when the type uses a kind
// the plugin itself registers (FunctionRegistry::Register converts it).
absl::StatusOr<c10::IValue> DefaultOf(const char* function, const PluginParam& param,
                                      const c10::IValue& value) {
  absl::StatusOr<const TypeInfo*> type = TypeRegistry::Global().Intern(param.type);
  if (!type.ok()) return value;
  absl::StatusOr<c10::IValue> converted = CoerceTo(value, **type);
  if (!converted.ok()) {
    return WithPath(converted.status(),
                    absl::StrCat("function '", function, "': default of argument '", param.name,
                                 "'"));
  }
  return converted;
}

}  // namespace

std::string KindName(c10::TypeKind kind) {
  std::string name = c10::typeKindToString(kind);
  if (absl::EndsWith(name, "Type")) name.resize(name.size() - 4);
  return name;
}

Registration::Registration(std::string plugin) : plugin_(std::move(plugin)) {
  staged_types_ = [this](const std::string& name) -> c10::TypePtr {
    for (const auto& [staged, type] : types_) {
      if (staged == name) return type;
    }
    return nullptr;
  };
}

Registration::~Registration() {
  for (StagedFunction& staged : functions_) {
    if (staged.free_data != nullptr) staged.free_data(staged.function.data);
  }
}

tsb_registrar Registration::Table() {
  tsb_registrar table{};
  table.abi_major = TSB_PLUGIN_ABI_MAJOR;
  table.abi_minor = TSB_PLUGIN_ABI_MINOR;
  table.num_slots = TSB_REGISTRAR_NUM_SLOTS;
  table.txn = this;
  table.add_kind_codec = &SlotAddKindCodec;
  table.add_type = &SlotAddType;
  table.add_function = &SlotAddFunction;
  table.add_function_with_arguments = &SlotAddFunctionWithArguments;
  return table;
}

absl::StatusOr<c10::TypePtr> Registration::Parse(const char* annotation) const {
  if (annotation == nullptr) return absl::InvalidArgumentError("a type string is NULL");
  return ParseType(annotation, &staged_types_);
}

bool Registration::IsStagedName(absl::string_view name) const {
  return std::any_of(types_.begin(), types_.end(),
                     [&](const auto& staged) { return staged.first == name; });
}

absl::Status Registration::AddKindCodec(std::unique_ptr<KindCodec> codec) {
  if (codec == nullptr) return absl::InvalidArgumentError("kind codec is NULL");
  c10::TypeKind kind = codec->type_kind();
  if (TypeRegistry::Global().CodecFor(kind) != nullptr) {
    return absl::AlreadyExistsError(
        absl::StrCat("a codec for ", KindName(kind), " is already registered"));
  }
  for (const auto& staged : codecs_) {
    if (staged->type_kind() == kind) {
      return absl::AlreadyExistsError(
          absl::StrCat("the plugin registers two codecs for ", KindName(kind)));
    }
  }
  codecs_.push_back(std::move(codec));
  return absl::OkStatus();
}

absl::Status Registration::AddType(const char* name, const char* annotation,
                                   const char* const* field_names, size_t num_fields) {
  if (name == nullptr || !IsQualifiedName(name)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "type name '", name ? name : "(null)", "' is not a qualified name like a.b_c"));
  }
  if (IsStagedName(name)) {
    return absl::AlreadyExistsError(absl::StrCat("the plugin registers type '", name, "' twice"));
  }
  if (TypeRegistry::Global().FindNamedType(name) != nullptr) {
    return absl::AlreadyExistsError(absl::StrCat("type '", name, "' is already registered"));
  }
  absl::StatusOr<c10::TypePtr> parsed = Parse(annotation);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("type '", name, "': ", parsed.status().message()));
  }
  const auto* tuple = (*parsed)->castRaw<c10::TupleType>();
  if (tuple == nullptr || tuple->schema() != nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "type '", name, "': a named record is a plain Tuple, got ", (*parsed)->annotation_str()));
  }
  if (num_fields != tuple->elements().size() || (num_fields > 0 && field_names == nullptr)) {
    return absl::InvalidArgumentError(absl::StrCat("type '", name, "': ", num_fields,
                                                   " field names for ", tuple->annotation_str()));
  }
  std::vector<std::string> fields;
  absl::flat_hash_set<std::string> seen;
  for (size_t i = 0; i < num_fields; ++i) {
    if (field_names[i] == nullptr || !IsQualifiedName(field_names[i]) ||
        absl::StrContains(field_names[i], '.') || !seen.insert(field_names[i]).second) {
      return absl::InvalidArgumentError(absl::StrCat(
          "type '", name, "': field ", i, " needs a unique identifier for a name"));
    }
    fields.emplace_back(field_names[i]);
  }
  types_.emplace_back(name, c10::TupleType::createNamed(c10::QualifiedName(name), fields,
                                                        tuple->elements().vec()));
  return absl::OkStatus();
}

absl::Status Registration::AddFunction(const char* name, const tsb_plugin_argument* args,
                                       size_t num_args, const char* return_type,
                                       tsb_plugin_function fn, void* data,
                                       void (*free_data)(void*)) {
  if (name == nullptr || *name == '\0') return absl::InvalidArgumentError("function name is empty");
  if (fn == nullptr) return absl::InvalidArgumentError(absl::StrCat("function '", name, "' is NULL"));
  for (const StagedFunction& staged : functions_) {
    if (staged.function.name == name) {
      return absl::AlreadyExistsError(absl::StrCat("the plugin registers function '", name, "' twice"));
    }
  }
  if (FunctionRegistry::Global().Find(name) != nullptr) {
    return absl::AlreadyExistsError(absl::StrCat("function '", name, "' is already registered"));
  }
  if (num_args > 0 && args == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("function '", name, "': NULL argument lists"));
  }
  PluginFunction function;
  function.name = name;
  function.fn = fn;
  function.data = data;
  function.plugin = plugin_;
  std::string defaulted;  // a positional argument with a default, once one is seen
  for (size_t i = 0; i < num_args; ++i) {
    const tsb_plugin_argument& arg = args[i];
    PluginParam param;
    param.name = arg.name != nullptr ? arg.name : "";
    param.kwarg_only = arg.kwarg_only != 0;
    absl::StatusOr<c10::TypePtr> type = Parse(arg.type);
    if (!type.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("function '", name, "', argument ", i, ": ",
                                                     type.status().message()));
    }
    param.type = *type;
    if (!function.params.empty() && function.params.back().kwarg_only && !param.kwarg_only) {
      return absl::InvalidArgumentError(absl::StrCat(
          "function '", name, "': positional argument '", param.name,
          "' follows a keyword-only one"));
    }
    if (arg.default_value != nullptr) {
      TSB_ASSIGN_OR_RETURN(param.default_value,
                           DefaultOf(name, param, *static_cast<const c10::IValue*>(arg.default_value)));
      if (!param.kwarg_only) defaulted = param.name;
      function.params.push_back(std::move(param));
      continue;
    }
    if (!defaulted.empty() && !param.kwarg_only) {
      return absl::InvalidArgumentError(absl::StrCat(
          "function '", name, "': argument '", param.name, "' has no default but follows '",
          defaulted, "', which has one"));
    }
    function.params.push_back(std::move(param));
  }
  absl::StatusOr<c10::TypePtr> result = Parse(return_type);
  if (!result.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("function '", name, "', return type: ",
                                                   result.status().message()));
  }
  function.return_type = *result;
  functions_.push_back({std::move(function), free_data});
  return absl::OkStatus();
}

absl::Status Registration::Commit(LoadedPlugin& record) {
  TypeRegistry& types = TypeRegistry::Global();
  for (auto& codec : codecs_) {
    record.kinds.push_back(KindName(codec->type_kind()));
    TSB_RETURN_IF_ERROR(types.RegisterCodec(std::move(codec), plugin_));
  }
  codecs_.clear();
  for (auto& [name, type] : types_) {
    TSB_RETURN_IF_ERROR(types.RegisterNamedType(name, type, plugin_));
    record.types.push_back(name);
  }
  for (StagedFunction& staged : functions_) {
    record.functions.push_back(staged.function.name);
    TSB_RETURN_IF_ERROR(FunctionRegistry::Global().Register(std::move(staged.function)));
    staged.free_data = nullptr;  // the registry keeps `data` for the life of the process
  }
  functions_.clear();
  return absl::OkStatus();
}

}  // namespace tsb::plugins
