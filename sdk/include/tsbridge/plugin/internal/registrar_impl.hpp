// Template members of tsb::Registrar (declared in tsbridge/plugin/plugin.hpp), and
// the trampoline that lets the core call a plain C++ function.
//
// The codecs a registration uses must be visible: include the
// tsbridge/plugin/codecs/<kind>.hpp headers of the argument and return types (or
// tsbridge/plugin/codecs/all.hpp) before registering. A function whose signature
// names a Hana struct needs that struct registered first (r.type<T>()): the
// core resolves the name when it records the function.
#ifndef TSBRIDGE_REGISTRAR_IMPL_HPP_
#define TSBRIDGE_REGISTRAR_IMPL_HPP_

#include <atomic>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>
#include <c10/util/Exception.h>

#include "tsbridge/plugin/codec.hpp"
#include "tsbridge/plugin/plugin.hpp"  // the class; harmless when plugin.hpp includes us

namespace tsb {
namespace detail {

// What Registrar::function hands the core as `data`: the function and what
// its errors need to say.
template <typename R, typename... Args>
struct RegisteredFunction {
  R (*fn)(Args...);
  std::string name;
  std::vector<std::string> arg_names;
  std::string returns;  // the registered record the result crosses as, or ""
  // That record's type, found on the first call (it is published with the
  // plugin, after registration); points into the registry's TypeInfo.
  mutable std::atomic<const c10::TypePtr*> record{nullptr};

  // The record type a tuple result is built as directly, when R's codec
  // builds exactly it (BuildsExactly: the core then finds the record's own
  // type and does not coerce it again); nullptr: build R's own type and let
  // the core coerce it.
  const c10::TypePtr* RecordType() const {
    if constexpr (std::is_void_v<R>) {
      return nullptr;
    } else if constexpr (!BuildsAs<std::decay_t<R>>::value) {
      return nullptr;
    } else {
      const c10::TypePtr* type = record.load(std::memory_order_acquire);
      if (type != nullptr || returns.empty()) return type;
      int32_t index = TSB_TYPE_INVALID;
      if (tsb_status* s = tsb_type_parse(returns.c_str(), &index)) {
        tsb_status_free(s);
        return nullptr;
      }
      absl::StatusOr<const TypeInfo*> info = FindType(index);
      if (!info.ok() || !BuildsExactly<std::decay_t<R>>(**info)) return nullptr;
      type = &(*info)->type;
      record.store(type, std::memory_order_release);
      return type;
    }
  }

  static void Free(void* data) { delete static_cast<RegisteredFunction*>(data); }

  // The tsb_plugin_function: converts the stack's arguments, calls fn and
  // leaves its result (None for void) alone on the stack. No exception
  // crosses back into the core.
  static tsb_status* Call(void* data, void* stack) noexcept {
    const auto& self = *static_cast<const RegisteredFunction*>(data);
    auto& values = *static_cast<torch::jit::Stack*>(stack);
    return ToTsbStatus(CatchAll([&]() -> absl::Status {
      if (values.size() != sizeof...(Args)) {
        return absl::InternalError(self.name + ": " + std::to_string(values.size()) +
                                   " values on the stack for " +
                                   std::to_string(sizeof...(Args)) + " arguments");
      }
      c10::IValue result;
      if (!InvokeBorrowed(self, values, &result, std::index_sequence_for<Args...>())) {
        absl::StatusOr<std::tuple<std::decay_t<Args>...>> args =
            FromIValues<std::decay_t<Args>...>(
                values, [&self](size_t i) { return ArgumentSegment(self.arg_names[i]); });
        if (!args.ok()) return args.status();
        result = Invoke(self.fn, *args, self.RecordType(), std::index_sequence_for<Args...>());
      }
      values.clear();
      values.push_back(std::move(result));
      return absl::OkStatus();
    }));
  }

 private:
  // Arguments move into by-value and rvalue parameters and bind to
  // reference parameters: static_cast<Args&&> is std::forward for a pack
  // that was never deduced.
  template <std::size_t... I>
  static c10::IValue Invoke(R (*fn)(Args...), std::tuple<std::decay_t<Args>...>& args,
                            const c10::TypePtr* record, std::index_sequence<I...>) {
    return Finish(fn, record, static_cast<Args&&>(std::get<I>(args))...);
  }

  // When every parameter is a `const at::Tensor&` and every value a Tensor,
  // fn reads the stack's own tensors: no copy in and out of a tuple, and no
  // reference-count traffic. Otherwise false, and Call converts (and words
  // any error) as for any other signature.
  template <std::size_t... I>
  static bool InvokeBorrowed(const RegisteredFunction& self,
                             [[maybe_unused]] const torch::jit::Stack& values,
                             [[maybe_unused]] c10::IValue* result, std::index_sequence<I...>) {
    if constexpr (sizeof...(Args) > 0 && (std::is_same_v<Args, const at::Tensor&> && ...)) {
      if (!(values[I].isTensor() && ...)) return false;
      *result = Finish(self.fn, self.RecordType(), values[I].toTensor()...);
      return true;
    } else {
      return false;
    }
  }

  // fn's result as an IValue (None for void), built as `record` when given.
  template <typename... Xs>
  static c10::IValue Finish(R (*fn)(Args...), [[maybe_unused]] const c10::TypePtr* record,
                            Xs&&... args) {
    if constexpr (std::is_void_v<R>) {
      fn(std::forward<Xs>(args)...);
      return c10::IValue();
    } else {
      return ToIValueAs<std::decay_t<R>>(fn(std::forward<Xs>(args)...), record);
    }
  }
};

template <typename R>
std::string ReturnTypeName() {
  if constexpr (std::is_void_v<R>) {
    return "None";
  } else {
    return std::string(Codec<std::decay_t<R>>::name());
  }
}

template <typename R, typename... Args>
Registrar& RegisterFunction(Registrar& r, const char* name, R (*fn)(Args...), const Arg* args,
                            size_t num_args, const char* returns) {
  static_assert((HasCodec<std::decay_t<Args>>::value && ...),
                "no tsb::Codec for an argument type: include its tsbridge/plugin/codecs/<kind>.hpp");
  static_assert(std::is_void_v<R> || HasCodec<std::decay_t<R>>::value,
                "no tsb::Codec for the return type: include its tsbridge/plugin/codecs/<kind>.hpp");
  using Data = RegisteredFunction<R, Args...>;
  const std::string shown = name != nullptr ? name : "(null)";
  if (name == nullptr || fn == nullptr) {
    r.Keep(ToTsbStatus(absl::InvalidArgumentError("function '" + shown +
                                                  "': NULL name or function")));
    return r;
  }
  // Copies: a codec's name() is a string_view, not promised to end in NUL.
  const std::vector<std::string> type_names{std::string(Codec<std::decay_t<Args>>::name())...};
  std::vector<tsb_plugin_argument> arguments;
  std::vector<std::string> arg_names;
  for (size_t i = 0; i < num_args; ++i) {
    if (args[i].name() == nullptr) {
      r.Keep(ToTsbStatus(absl::InvalidArgumentError("function '" + shown +
                                                    "': NULL argument name")));
      return r;
    }
    const c10::optional<c10::IValue>& default_value = args[i].default_value();
    arguments.push_back({args[i].name(), type_names[i].c_str(),
                         default_value.has_value() ? &*default_value : nullptr,
                         args[i].is_kwarg_only() ? 1 : 0, 0});
    arg_names.emplace_back(args[i].name());
  }
  // A registered record named by `returns` (checked by the core when it
  // parses it) replaces the structural type of R.
  const std::string return_type = returns != nullptr ? returns : ReturnTypeName<R>();
  auto data = std::make_unique<Data>();
  data->fn = fn;
  data->name = shown;
  data->arg_names = std::move(arg_names);
  if (returns != nullptr) data->returns = returns;
  // function_raw owns data from here on: it frees it if registration fails.
  return r.function_raw(name, arguments, return_type.c_str(), &Data::Call, data.release(),
                        &Data::Free);
}

// What Registrar::op hands the core as `data`: the operator, called boxed;
// several returns become one tuple, which the core converts to the record.
struct RegisteredOperator {
  c10::OperatorHandle handle;
  size_t num_returns;

  static void Free(void* data) { delete static_cast<RegisteredOperator*>(data); }

  static tsb_status* Call(void* data, void* stack) noexcept {
    const auto& self = *static_cast<const RegisteredOperator*>(data);
    auto& values = *static_cast<torch::jit::Stack*>(stack);
    return ToTsbStatus(CatchAll([&] {
      self.handle.callBoxed(values);
      if (self.num_returns != 1) {
        std::vector<c10::IValue> returns(std::make_move_iterator(values.end() - self.num_returns),
                                         std::make_move_iterator(values.end()));
        values.clear();
        values.push_back(c10::ivalue::Tuple::create(std::move(returns)));
      }
    }));
  }
};

}  // namespace detail

inline Registrar& Registrar::op(const char* name, const Record& returns) {
  const std::string shown = name != nullptr ? name : "(null)";
  std::string qualified = shown, overload;
  if (size_t dot = qualified.find('.', qualified.find("::")); dot != std::string::npos) {
    overload = qualified.substr(dot + 1);
    qualified.resize(dot);
  }
  c10::optional<c10::OperatorHandle> handle =
      c10::Dispatcher::singleton().findSchema({qualified, overload});
  if (!handle.has_value()) {
    Keep(ToTsbStatus(absl::NotFoundError(
        "op '" + shown + "': no such operator (register it with TORCH_LIBRARY first)")));
    return *this;
  }
  const c10::FunctionSchema& schema = handle->schema();
  std::vector<std::string> types;
  types.reserve(schema.arguments().size());  // the arguments point into these
  std::vector<tsb_plugin_argument> arguments;
  for (const c10::Argument& a : schema.arguments()) {
    types.push_back(a.real_type()->annotation_str());
    arguments.push_back({a.name().c_str(), types.back().c_str(),
                         a.default_value().has_value() ? &*a.default_value() : nullptr,
                         a.kwarg_only() ? 1 : 0, 0});
  }
  auto data = std::make_unique<detail::RegisteredOperator>(
      detail::RegisteredOperator{*handle, schema.returns().size()});
  return function_raw(shown.c_str(), arguments, returns.name.c_str(),
                      &detail::RegisteredOperator::Call, data.release(),
                      &detail::RegisteredOperator::Free);
}

template <typename T, typename = void>
struct IsHanaRecord : std::false_type {};
template <typename T>
struct IsHanaRecord<T, std::void_t<decltype(Codec<T>::tuple_annotation())>> : std::true_type {};

template <typename T, size_t N>
Record Registrar::type(const char* name, const char* const (&fields)[N]) {
  static_assert(HasCodec<T>::value,
                "no tsb::Codec for this type: include its tsbridge/plugin/codecs/<kind>.hpp");
  static_assert(!IsHanaRecord<T>::value,
                "a BOOST_HANA_ADAPT_STRUCT type has its own TorchScript name (its C++ "
                "qualified name) and field names: register it with r.type<T>()");
  const std::string annotation(Codec<T>::name());
  if (Usable(1)) Keep(table_->add_type(table_->txn, name, annotation.c_str(), fields, N));
  return Record{name != nullptr ? name : ""};
}

template <typename T>
Record Registrar::type() {
  static_assert(HasCodec<T>::value,
                "Registrar::type<T>() takes a BOOST_HANA_ADAPT_STRUCT type: "
                "include tsbridge/plugin/codecs/hana.hpp");
  const std::string name(Codec<T>::name());
  const std::string annotation(Codec<T>::tuple_annotation());
  const auto& fields = Codec<T>::field_names();
  if (Usable(1)) {
    Keep(table_->add_type(table_->txn, name.c_str(), annotation.c_str(), fields.data(),
                          fields.size()));
  }
  return Record{name};
}

template <typename R, typename... Args, size_t N>
Registrar& Registrar::function(const char* name, R (*fn)(Args...), const Arg (&args)[N],
                               const Record& returns) {
  return function(name, fn, args, returns.name.c_str());
}

template <typename R>
Registrar& Registrar::function(const char* name, R (*fn)(), const char* returns) {
  const Arg* none = nullptr;
  return detail::RegisterFunction(*this, name, fn, none, 0, returns);
}

template <typename R, typename... Args, size_t N>
Registrar& Registrar::function(const char* name, R (*fn)(Args...), const Arg (&args)[N],
                               const char* returns) {
  static_assert(N == sizeof...(Args),
                "r.function: give one argument name per parameter of the function");
  return detail::RegisterFunction(*this, name, fn, args, N, returns);
}

}  // namespace tsb

#endif  // TSBRIDGE_REGISTRAR_IMPL_HPP_
