#include "core/call/call.h"

#include <sstream>

#include <ATen/core/ivalue.h>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/text/json_codec.h"
#include "core/types/type_registry.h"
#include "core/value/convert.h"

namespace tsb::call {
namespace {

bool MentionsSymInt(const c10::TypePtr& type) {
  if (type->kind() == c10::TypeKind::SymIntType) return true;
  for (const c10::TypePtr& t : type->containedTypes()) {
    if (MentionsSymInt(t)) return true;
  }
  return false;
}

Param MakeParam(const c10::Argument& arg) {
  Param p;
  p.name = arg.name();
  // real_type: a dtype parameter is `ScalarType` to the host, though
  // LibTorch's interpreter carries it as an int (type()). SymInt is the
  // exception: its kernels take plain ints, and type() says int there.
  p.type = MentionsSymInt(arg.real_type()) ? arg.type() : arg.real_type();
  p.default_value = arg.default_value();
  p.kwarg_only = arg.kwarg_only();
  if (arg.N().has_value()) p.list_size = *arg.N();
  p.generic = p.type->hasFreeVariables();
  if (!p.generic) {
    absl::StatusOr<const TypeInfo*> info = TypeRegistry::Global().Intern(p.type);
    if (info.ok()) {
      p.info = *info;
      if (p.default_value.has_value()) {
        // A default the JSON form cannot write stays unlisted (NULL).
        absl::StatusOr<text::Json> written = text::Write(*p.default_value, *p.info);
        if (written.ok()) p.default_json = text::Dump(*written);
      }
    } else {
      p.unsupported = info.status();
    }
  }
  return p;
}

// The type of several returns: a NamedTuple when each one is named (as
// PyTorch's torch.return_types.max), else a plain Tuple.
c10::TypePtr ReturnsType(const std::vector<Param>& returns, const std::string& tuple_name,
                         const std::vector<std::string>& names) {
  if (returns.empty()) return c10::NoneType::get();
  if (returns.size() == 1) return returns[0].type;
  std::vector<c10::TypePtr> types;
  bool named = !tuple_name.empty();
  for (const Param& r : returns) {
    types.push_back(r.type);
    named = named && !r.name.empty();
  }
  if (named) return c10::TupleType::createNamed(c10::QualifiedName(tuple_name), names, types);
  return c10::TupleType::create(std::move(types));
}

tsb_argument_info Info(const Param& p, const std::string& annotation) {
  tsb_argument_info info{};
  info.struct_size = sizeof(tsb_argument_info);
  info.name = p.name.c_str();
  info.annotation = annotation.c_str();
  info.type_index = p.info != nullptr ? p.info->index : TSB_TYPE_INVALID;
  info.has_default = p.default_value.has_value();
  info.kwarg_only = p.kwarg_only;
  info.default_json = p.default_json.empty() ? nullptr : p.default_json.c_str();
  info.list_size = p.list_size;
  return info;
}

// The parameter's type for this call: fixed, interned now (a plugin loaded
// since the signature was made), or a generic one resolved from the
// argument's own type (t[] given a List[int] is List[int]).
absl::StatusOr<const TypeInfo*> ParamType(const Param& p, const TypeInfo* actual,
                                          c10::TypeEnv& env) {
  if (p.info != nullptr) return p.info;
  if (!p.generic) return TypeRegistry::Global().Intern(p.type);
  c10::MatchTypeReturn match = c10::matchTypeVariables(p.type, actual->type, env);
  if (!match.success()) {
    return TypeError(absl::StrCat("expected ", p.type->annotation_str(), ", got ",
                                  actual->annotation, ": ", match.reason()));
  }
  c10::TypePtr resolved = c10::tryEvalTypeVariables(p.type, env);
  if (resolved == nullptr) {
    return TypeError(absl::StrCat("cannot infer ", p.type->annotation_str(), " from ",
                                  actual->annotation));
  }
  return TypeRegistry::Global().Intern(resolved);
}

// True when no value of `actual` ever converts to `expected`, known from the
// kinds alone: only a Tensor is a Tensor, and a Tensor is no other leaf.
bool NeverConverts(const TypeInfo& actual, const TypeInfo& expected) {
  if (expected.codec->is_abstract()) return false;
  if (expected.kind == TSB_KIND_TENSOR) return actual.kind != TSB_KIND_TENSOR;
  return actual.kind == TSB_KIND_TENSOR && expected.index < TSB_TYPE_FIRST_DYNAMIC;
}

// Coerces one argument, adding its cost: the value's own type (0), a
// subtype that passes unchanged (1: int for Scalar, Tensor for Optional[Tensor]),
// or a conversion by the expected type's codec (2: int to float, a host
// List[Any] to List[int]).
absl::StatusOr<c10::IValue> CoerceArg(const HostArg& arg, const TypeInfo& expected,
                                      Binding* out) {
  if (arg.type == &expected) return arg.value();
  if (arg.type->type->isSubtypeOf(*expected.type)) {
    out->cost += 1;
    return arg.value();
  }
  if (!out->explain && NeverConverts(*arg.type, expected)) {
    return absl::InvalidArgumentError("");
  }
  out->cost += 2;
  absl::StatusOr<c10::IValue> converted = CoerceTo(arg.value(), expected);
  out->value_dependent = !converted.ok();
  return converted;
}

// An int where the schema says int[2] (stride=1) is [1, 1], as TorchScript
// broadcasts it; likewise a float or bool for float[N] and bool[N]. None
// when `value` is not such a scalar.
c10::optional<c10::IValue> Broadcast(const Param& p, const c10::IValue& value) {
  const auto* list = p.type->castRaw<c10::ListType>();
  if (p.list_size <= 0 || list == nullptr) return c10::nullopt;
  const size_t n = static_cast<size_t>(p.list_size);
  const c10::TypeKind element = list->getElementType()->kind();
  if (element == c10::TypeKind::IntType && value.isInt()) {
    return c10::IValue(c10::List<int64_t>(std::vector<int64_t>(n, value.toInt())));
  }
  if (element == c10::TypeKind::FloatType && (value.isDouble() || value.isInt())) {
    return c10::IValue(c10::List<double>(std::vector<double>(n, value.toScalar().toDouble())));
  }
  if (element == c10::TypeKind::BoolType && value.isBool()) {
    c10::List<bool> bools;
    for (size_t i = 0; i < n; ++i) bools.push_back(value.toBool());
    return c10::IValue(std::move(bools));
  }
  return c10::nullopt;
}

// "ns::f(Tensor x, List[int] idx, float by=1.0) -> ns.record"
std::string AnnotationText(const Signature& sig) {
  std::string text = absl::StrCat(sig.display(), "(");
  bool kwarg_only = false;
  for (size_t i = 0; i < sig.params().size(); ++i) {
    const Param& p = sig.params()[i];
    absl::StrAppend(&text, i ? ", " : "", p.kwarg_only && !kwarg_only ? "*, " : "",
                    p.type->annotation_str(), " ", p.name);
    kwarg_only = kwarg_only || p.kwarg_only;
    if (p.default_value.has_value()) {
      absl::StrAppend(&text, "=", p.default_json.empty() ? "..." : p.default_json);
    }
  }
  absl::StrAppend(&text, ") -> ", sig.result_type()->annotation_str());
  return text;
}

}  // namespace

std::unique_ptr<Signature> Signature::Make(const c10::FunctionSchema& schema,
                                           std::string display, bool skip_self,
                                           std::string tuple_name, bool describe,
                                           bool annotation_text) {
  auto sig = std::make_unique<Signature>();
  sig->display_ = std::move(display);
  std::ostringstream text;
  text << schema;
  sig->text_ = text.str();
  sig->name_ = schema.name();
  sig->overload_ = schema.overload_name();
  const auto& args = schema.arguments();
  for (size_t i = skip_self && !args.empty() ? 1 : 0; i < args.size(); ++i) {
    sig->params_.push_back(MakeParam(args[i]));
    if (!args[i].kwarg_only()) ++sig->num_positional_;
  }
  std::vector<std::string> names;
  for (const c10::Argument& r : schema.returns()) {
    sig->returns_.push_back(MakeParam(r));
    names.push_back(r.name());
    sig->result_generic_ = sig->result_generic_ || sig->returns_.back().generic;
  }
  sig->result_type_ = ReturnsType(sig->returns_, tuple_name, names);
  if (!sig->result_generic_) {
    absl::StatusOr<const TypeInfo*> result = TypeRegistry::Global().Intern(sig->result_type_);
    if (result.ok()) {
      sig->result_ = *result;
    } else {
      sig->result_status_ = result.status();
    }
  }
  if (annotation_text) sig->text_ = AnnotationText(*sig);
  if (describe) {
    // Reserved up front: the infos point into these strings.
    sig->annotations_.reserve(sig->params_.size() + sig->returns_.size());
    for (const Param& p : sig->params_) {
      sig->annotations_.push_back(p.type->annotation_str());
      sig->arg_infos_.push_back(Info(p, sig->annotations_.back()));
    }
    for (const Param& r : sig->returns_) {
      sig->annotations_.push_back(r.type->annotation_str());
      sig->return_infos_.push_back(Info(r, sig->annotations_.back()));
    }
  }
  return sig;
}

void Signature::Describe(tsb_schema_info* out) const {
  out->name = display_.c_str();
  out->overload_name = overload_.c_str();
  out->schema = text_.c_str();
  out->num_arguments = arg_infos_.size();
  out->arguments = arg_infos_.data();
  out->num_returns = return_infos_.size();
  out->returns = return_infos_.data();
}

namespace {

// One argument, borrowed when it is a handle (no copy, no StatusOr).
absl::Status DecodeArg(const tsb_any& value, HostArg* out) {
  BorrowedValue b;
  absl::Status status = Borrow(value, &b);
  if (!status.ok()) {
    if (!absl::IsUnimplemented(status) || b.type == nullptr) return status;
    out->type = b.type;  // typed, but without an IValue here
    out->unheld = std::move(status);
    return absl::OkStatus();
  }
  out->type = b.type;
  if (b.value == &b.scratch) {
    out->own = std::move(b.scratch);
  } else {
    out->borrowed = b.value;
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status DecodeArgs(const tsb_any* args, size_t num_args, const char* const* kw_names,
                        const tsb_any* kw_values, size_t num_kwargs, HostArgs* out) {
  // The arrays are checked (tsb::abi::CheckCallArgs).
  out->positional.resize(num_args);
  for (size_t i = 0; i < num_args; ++i) {
    absl::Status status = DecodeArg(args[i], &out->positional[i]);
    if (!status.ok()) return WithPath(status, absl::StrCat("args[", i, "]"));
  }
  out->keywords.reserve(num_kwargs);
  for (size_t i = 0; i < num_kwargs; ++i) {
    if (kw_names[i] == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("kw_names[", i, "] is NULL"));
    }
    HostArg arg;
    absl::Status status = DecodeArg(kw_values[i], &arg);
    if (!status.ok()) return WithPath(status, absl::StrCat("keyword '", kw_names[i], "'"));
    out->keywords.emplace_back(kw_names[i], std::move(arg));
  }
  return absl::OkStatus();
}

std::string DescribeArgs(const HostArgs& args) {
  std::vector<std::string> parts;
  for (const HostArg& a : args.positional) parts.push_back(a.type->annotation);
  for (const auto& [name, a] : args.keywords) {
    parts.push_back(absl::StrCat(name, "=", a.type->annotation));
  }
  return absl::StrCat("(", absl::StrJoin(parts, ", "), ")");
}

namespace {

// Larger stacks are not kept: a thread holds at most this many IValues' worth.
constexpr size_t kMaxSpareStack = 64;

// One spare stack buffer per thread, always empty. Only one Binding holds it
// at a time: a nested call (a plugin function calling an operator) or a
// second Binding alive at once (choosing an overload) allocates its own.
struct SpareStack {
  torch::jit::Stack stack;
  ~SpareStack();
};
// Trivially destructible, so still readable after the thread's SpareStack is
// gone (another thread_local's destructor may still make calls).
thread_local bool t_spare_gone = false;
SpareStack::~SpareStack() { t_spare_gone = true; }

torch::jit::Stack* Spare() {
  if (t_spare_gone) return nullptr;
  thread_local SpareStack spare;
  return &spare.stack;
}

}  // namespace

Binding::Binding() {
  if (torch::jit::Stack* spare = Spare()) stack.swap(*spare);
}

Binding::~Binding() {
  if (stack.capacity() == 0 || stack.capacity() > kMaxSpareStack) return;
  // Cleared first: releasing a value may run code that binds a call too.
  stack.clear();
  torch::jit::Stack* spare = Spare();
  if (spare != nullptr && spare->capacity() == 0) stack.swap(*spare);
}

absl::Status Bind(const Signature& sig, const HostArgs& args, Binding* out) {
  const std::vector<Param>& params = sig.params();
  // A refusal's text, built only when someone will read it.
  auto refuse = [out](auto&&... parts) {
    return absl::InvalidArgumentError(out->explain ? absl::StrCat(parts...) : std::string());
  };
  if (args.positional.size() > sig.num_positional()) {
    return refuse("expected at most ", sig.num_positional(), " positional arguments, got ",
                  args.positional.size());
  }
  // Which host value fills each parameter; nullptr: its default.
  absl::InlinedVector<const HostArg*, 8> slots(params.size(), nullptr);
  for (size_t i = 0; i < args.positional.size(); ++i) slots[i] = &args.positional[i];
  for (const auto& [name, arg] : args.keywords) {
    size_t i = 0;
    while (i < params.size() && params[i].name != name) ++i;
    if (i == params.size()) return refuse("unknown keyword argument '", name, "'");
    if (slots[i] != nullptr) return refuse("argument '", name, "' given twice");
    slots[i] = &arg;
  }
  c10::TypeEnv env;
  out->stack.reserve(out->stack.size() + params.size());
  for (size_t i = 0; i < params.size(); ++i) {
    const Param& p = params[i];
    if (slots[i] == nullptr) {
      if (!p.default_value.has_value()) return refuse("missing argument '", p.name, "'");
      out->stack.push_back(*p.default_value);
      ++out->defaults;
      continue;
    }
    const HostArg* arg = slots[i];
    if (!arg->unheld.ok()) {
      return out->explain ? WithPath(arg->unheld, ArgumentSegment(p.name)) : arg->unheld;
    }
    HostArg broadcast;
    if (p.list_size > 0 && p.info != nullptr) {
      if (c10::optional<c10::IValue> list = Broadcast(p, arg->value())) {
        broadcast.own = *std::move(list);
        broadcast.type = p.info;
        arg = &broadcast;
        out->cost += 2;  // a conversion
      }
    }
    absl::StatusOr<const TypeInfo*> type = ParamType(p, arg->type, env);
    absl::StatusOr<c10::IValue> value = type.ok() ? CoerceArg(*arg, **type, out) : type.status();
    if (!value.ok()) {
      if (!out->explain) return value.status();
      return WithPath(value.status(), ArgumentSegment(p.name));
    }
    out->stack.push_back(*std::move(value));
  }
  if (sig.result() != nullptr) {
    out->result = sig.result();
  } else {
    c10::TypePtr type = sig.result_type();
    if (sig.result_generic()) type = c10::tryEvalTypeVariables(type, env);
    absl::StatusOr<const TypeInfo*> result =
        type == nullptr ? TypeError(absl::StrCat("cannot infer the return type ",
                                                 sig.result_type()->annotation_str()))
                        : TypeRegistry::Global().Intern(type);
    if (result.ok()) {
      out->result = *result;
    } else {
      out->result_status = result.status();
    }
  }
  return absl::OkStatus();
}

absl::Status TakeResult(const Signature& sig, const Binding& binding,
                        torch::jit::Stack& stack, tsb_any* out) {
  TSB_RETURN_IF_ERROR(binding.result_status);
  size_t n = sig.num_returns();
  if (stack.size() < n) {
    return absl::InternalError(absl::StrCat("the callee left ", stack.size(),
                                            " values on the stack, not ", n));
  }
  if (n == 0) return ToBoundary(c10::IValue(), *binding.result, out);
  if (n == 1) return ToBoundary(std::move(stack.back()), *binding.result, out);
  std::vector<c10::IValue> items(std::make_move_iterator(stack.end() - n),
                                 std::make_move_iterator(stack.end()));
  // Built with its type, so no thread ever infers a tuple's type lazily
  // (docs/architecture.md, known limits).
  auto tuple = c10::ivalue::Tuple::createNamed(
      std::move(items), binding.result->type->expect<c10::TupleType>());
  return ToBoundary(c10::IValue(std::move(tuple)), *binding.result, out);
}

}  // namespace tsb::call
