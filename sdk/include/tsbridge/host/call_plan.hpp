// The call plan: how a host types the arguments of one callee, read once
// from its schemas (a method's, a plugin function's, every overload of an
// operator), so that every host builds the same values for the same call
// and names a failing argument with the same path. Header-only C++17 over
// tsbridge.h and the host kit; docs/hosts.md, "The call plan".
//
//   CallPlan plan = CallPlan::ForOperator("aten::add");       // once per callee
//   plan.BuildPositional(i, [&](const PlannedArgument& a) {    // per argument
//     ToBoundary(x, a.TypeFor(IsLoneNumber(x)), &args[i]);
//   });
//
// Where an operator's overloads agree on an argument, it is built by their
// type; where they disagree, as Any (by the host value's own type), and the
// core chooses the overload. A lone int (float, bool) where a schema says
// int[2] (float[2], bool[2]) is built as a scalar: the core broadcasts it
// as TorchScript does.
#ifndef TSBRIDGE_HOST_CALL_PLAN_HPP_
#define TSBRIDGE_HOST_CALL_PLAN_HPP_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tsbridge/path.hpp"
#include "tsbridge/tsbridge.h"
#include "tsbridge/host/kit.hpp"

namespace tsb::kit {

// One argument as the plan expects it, by position or by name.
struct PlannedArgument {
  std::string name;  // empty: overloads name this position differently
  int32_t type = TSB_TYPE_ANY;  // what every schema that has it says, else Any
  bool kwarg_only = false;      // keyword-only in every schema that has it
  // The type is Any and some overload takes a Tensor here: a host whose
  // values are ambiguous (an R vector) may build a Tensor.
  bool tensor_possible = false;
  // int[2] (float[2], bool[2]) in some schema: a lone scalar here is built
  // as this leaf type, and the core broadcasts it; else TSB_TYPE_INVALID.
  int32_t scalar_type = TSB_TYPE_INVALID;

  // The type to build a host value by: `lone_scalar` says whether it is a
  // single number or bool in the host's terms.
  int32_t TypeFor(bool lone_scalar) const {
    return lone_scalar && scalar_type != TSB_TYPE_INVALID ? scalar_type : type;
  }
};

namespace internal {

// The leaf type a lone scalar stands for where an argument is a fixed-size
// list (list_size > 0, from 1.8): int[2] -> int; else TSB_TYPE_INVALID.
inline int32_t FixedListElement(const tsb_argument_info& arg) {
  if (arg.struct_size < offsetof(tsb_argument_info, list_size) + sizeof arg.list_size ||
      arg.list_size <= 0 || arg.annotation == nullptr) {
    return TSB_TYPE_INVALID;
  }
  const std::string_view type = arg.annotation;
  if (type == "List[int]") return TSB_TYPE_INT;
  if (type == "List[float]") return TSB_TYPE_FLOAT;
  if (type == "List[bool]") return TSB_TYPE_BOOL;
  return TSB_TYPE_INVALID;
}

}  // namespace internal

class CallPlan {
 public:
  // No schema (an object's method): every argument by the host value's own
  // type, named by position or keyword in the one path syntax.
  explicit CallPlan(std::string callee) : callee_(std::move(callee)) {}
  CallPlan() = default;

  // From n >= 1 schemas of one callee: a method's or a plugin function's
  // one, or an operator's overloads (pointers read here, not kept).
  CallPlan(const tsb_schema_info* schemas, size_t n)
      : callee_(n > 0 && schemas[0].name != nullptr ? schemas[0].name : "") {
    for (size_t s = 0; s < n; ++s) Add(schemas[s]);
    num_schemas_ = n;
  }

  // A method's plan, from tsb_module_get_method's schema.
  static CallPlan ForMethod(const tsb_schema_info& method) { return CallPlan(&method, 1); }
  // A module's method by name; a name the module lacks is planned untyped,
  // and the call says so (the core names the methods there are). Throws
  // ConvertError.
  static CallPlan ForModuleMethod(const tsb_module* m, std::string_view name) {
    const std::optional<FoundMethod> method = FindMethod(m, name);
    return method ? ForMethod(method->info) : CallPlan(std::string(name));
  }
  // A plugin function's (tsb_function_get_schema); throws ConvertError.
  static CallPlan ForFunction(const char* name) {
    tsb_schema_info info{};
    info.struct_size = sizeof info;
    CheckStatus(tsb_function_get_schema(name, &info));
    return CallPlan(&info, 1);
  }
  // An operator's, from all its overloads; throws ConvertError.
  static CallPlan ForOperator(const char* name) {
    const std::vector<tsb_schema_info> overloads = Overloads(name);
    return CallPlan(overloads.data(), overloads.size());
  }

  const std::string& callee() const { return callee_; }
  size_t num_schemas() const { return num_schemas_; }
  // Every argument by name, in the first schema's order (then any other
  // overload's new names): for one schema, its arguments as declared.
  const std::vector<PlannedArgument>& arguments() const { return named_; }
  // Positional argument i; past the last, an untyped one.
  const PlannedArgument& Positional(size_t i) const {
    return i < positional_.size() ? positional_[i] : Untyped();
  }
  // The keyword argument `name`; an unknown name, an untyped one (the core
  // refuses the name).
  const PlannedArgument& Keyword(std::string_view name) const {
    for (const PlannedArgument& a : named_) {
      if (a.name == name) return a;
    }
    return Untyped();
  }

  // "aten::add(): argument 'other'", or "argument 2" for a position the
  // overloads name differently; made only for an error.
  std::string PositionalPath(size_t i) const {
    const PlannedArgument& a = Positional(i);
    return Prefix() + (a.name.empty() ? PositionSegment(i) : ArgumentSegment(a.name));
  }
  std::string KeywordPath(std::string_view name) const { return Prefix() + ArgumentSegment(name); }

  // build(const PlannedArgument&) builds positional argument i (or the
  // keyword argument `name`); a ConvertError out of it gets the argument's
  // path in front, made only then. Where the plan only guessed (overloads
  // that agree here may not be the one that fits; a lone scalar taken as
  // int[2]'s element), a value the host cannot build so is built again
  // untyped, and the core says why no overload takes it: the message every
  // host gives for that call.
  template <typename BuildArgument>
  void BuildPositional(size_t i, BuildArgument&& build) const {
    At([&] { return PositionalPath(i); }, [&] { BuildOrDefer(Positional(i), build); });
  }
  template <typename BuildArgument>
  void BuildKeyword(std::string_view name, BuildArgument&& build) const {
    At([&] { return KeywordPath(name); }, [&] { BuildOrDefer(Keyword(name), build); });
  }

 private:
  static const PlannedArgument& Untyped() {
    static const PlannedArgument untyped;
    return untyped;
  }
  std::string Prefix() const { return callee_ + "(): "; }

  template <typename BuildArgument>
  void BuildOrDefer(const PlannedArgument& a, BuildArgument& build) const {
    const bool guessed = a.type != TSB_TYPE_ANY && (num_schemas_ > 1 ||
                                                    a.scalar_type != TSB_TYPE_INVALID);
    if (!guessed) return build(a);
    try {
      build(a);
    } catch (const ConvertError& e) {
      if (e.code != TSB_ERR_TYPE) throw;
      build(Untyped());
    }
  }

  // Merges one schema's arguments into the plan: by position (its
  // positional ones) and by name (all of them).
  void Add(const tsb_schema_info& schema) {
    size_t position = 0;
    for (size_t i = 0; i < schema.num_arguments; ++i) {
      const tsb_argument_info* arg = tsb_schema_get_argument(&schema, i);
      PlannedArgument a;
      a.name = arg->name;
      a.type = arg->type_index == TSB_TYPE_INVALID ? TSB_TYPE_ANY : arg->type_index;
      a.kwarg_only = arg->kwarg_only;
      a.scalar_type = internal::FixedListElement(*arg);
      if (!arg->kwarg_only) Merge(positional_, position++, a);
      size_t at = 0;
      while (at < named_.size() && named_[at].name != a.name) ++at;
      Merge(named_, at, a);
    }
  }

  // Slot `at` of `slots` (at most one past the end) takes `a`: as it is when
  // new, else what both agree on.
  static void Merge(std::vector<PlannedArgument>& slots, size_t at, const PlannedArgument& a) {
    if (at == slots.size()) {
      slots.push_back(a);
      return;
    }
    PlannedArgument& slot = slots[at];
    if (slot.name != a.name) slot.name.clear();
    if (slot.type != a.type) {
      slot.tensor_possible = slot.tensor_possible || slot.type == TSB_TYPE_TENSOR ||
                             a.type == TSB_TYPE_TENSOR;
      slot.type = TSB_TYPE_ANY;
    }
    slot.kwarg_only = slot.kwarg_only && a.kwarg_only;
    if (slot.scalar_type == TSB_TYPE_INVALID) slot.scalar_type = a.scalar_type;
  }

  std::string callee_;
  size_t num_schemas_ = 0;
  std::vector<PlannedArgument> positional_;
  std::vector<PlannedArgument> named_;
};

// The converted arguments of one call, each built by the callee's plan and
// owned here (OwnedVec: no allocation for a call's usual few), viewed as
// the tsb_call_args that tsb_module_call_method, tsb_op_call and
// tsb_function_call take. Keyword names are borrowed: the host's own (a
// Python kwnames str, an R argument list's names, a JSON object's keys),
// alive until the call returns. The one call-arguments type of the C++
// hosts (Python, R, tsb).
class CallArguments {
 public:
  // Room for at most `positional` and `keyword` arguments.
  CallArguments(size_t positional, size_t keyword)
      : positional_(positional), keyword_(keyword) {
    names_.reserve(keyword);
  }
  CallArguments(const CallArguments&) = delete;
  CallArguments& operator=(const CallArguments&) = delete;

  // The next positional argument, by build(const PlannedArgument&, tsb_any*
  // out); a failure gets the argument's path (CallPlan::BuildPositional).
  template <typename BuildArgument>
  void AddPositional(const CallPlan& plan, BuildArgument&& build) {
    tsb_any* out = &positional_[num_positional_];
    plan.BuildPositional(num_positional_, [&](const PlannedArgument& a) { build(a, out); });
    ++num_positional_;
  }
  // The keyword argument `name` (borrowed), the same way.
  template <typename BuildArgument>
  void AddKeyword(const CallPlan& plan, const char* name, BuildArgument&& build) {
    tsb_any* out = &keyword_[names_.size()];
    plan.BuildKeyword(name, [&](const PlannedArgument& a) { build(a, out); });
    names_.push_back(name);
  }

  size_t num_positional() const { return num_positional_; }
  size_t num_keyword() const { return names_.size(); }
  // Valid while these arguments live and none is added.
  tsb_call_args view() const {
    tsb_call_args a = tsb_call_args_make(positional_.data(), num_positional_);
    a.kw_names = names_.data();
    a.kw_values = keyword_.data();
    a.num_kwargs = names_.size();
    return a;
  }

 private:
  OwnedVec positional_, keyword_;
  size_t num_positional_ = 0;
  std::vector<const char*> names_;
};

}  // namespace tsb::kit

#endif  // TSBRIDGE_HOST_CALL_PLAN_HPP_
