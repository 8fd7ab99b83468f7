// Template members of tsb::Registrar (declared in tsbridge/plugin.hpp), and
// the trampoline that lets the core call a plain C++ function.
//
// The codecs a registration uses must be visible: include the
// tsbridge/codecs/<kind>.hpp headers of the argument and return types (or
// tsbridge/codecs/all.hpp) before registering. A function whose signature
// names a Hana struct needs that struct registered first (r.type<T>()): the
// core resolves the name when it records the function.
#ifndef TSBRIDGE_REGISTRAR_IMPL_HPP_
#define TSBRIDGE_REGISTRAR_IMPL_HPP_

#include <exception>
#include <memory>
#include <new>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <ATen/core/stack.h>
#include <c10/util/Exception.h>

#include "tsbridge/codec.hpp"
#include "tsbridge/plugin.hpp"  // the class; harmless when plugin.hpp includes us

namespace tsb {
namespace detail {

// What Registrar::function hands the core as `data`: the function and what
// its errors need to say.
template <typename R, typename... Args>
struct RegisteredFunction {
  R (*fn)(Args...);
  std::string name;
  std::vector<std::string> arg_names;

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
      absl::StatusOr<std::tuple<std::decay_t<Args>...>> args =
          FromIValues<std::decay_t<Args>...>(
              values, [&self](size_t i) { return ArgumentSegment(self.arg_names[i]); });
      if (!args.ok()) return args.status();
      c10::IValue result = Invoke(self.fn, *args, std::index_sequence_for<Args...>());
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
                            std::index_sequence<I...>) {
    if constexpr (std::is_void_v<R>) {
      fn(static_cast<Args&&>(std::get<I>(args))...);
      return c10::IValue();
    } else {
      return Codec<std::decay_t<R>>::ToIValue(fn(static_cast<Args&&>(std::get<I>(args))...));
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

}  // namespace detail

template <typename T>
Registrar& Registrar::type(const char* name, std::initializer_list<const char*> fields) {
  static_assert(HasCodec<T>::value,
                "no tsb::Codec for this type: include its tsbridge/codecs/<kind>.hpp");
  return type(name, std::string(Codec<T>::name()).c_str(), fields);
}

template <typename T>
Registrar& Registrar::type() {
  static_assert(HasCodec<T>::value,
                "Registrar::type<T>() takes a BOOST_HANA_ADAPT_STRUCT type: "
                "include tsbridge/codecs/hana.hpp");
  const std::string name(Codec<T>::name());
  const std::string annotation(Codec<T>::tuple_annotation());
  const auto& fields = Codec<T>::field_names();
  if (Usable(1)) {
    Keep(table_->add_type(table_->txn, name.c_str(), annotation.c_str(), fields.data(),
                          fields.size()));
  }
  return *this;
}

template <typename R, typename... Args>
Registrar& Registrar::function(const char* name, R (*fn)(Args...),
                               std::initializer_list<const char*> arg_names,
                               const char* returns) {
  static_assert((HasCodec<std::decay_t<Args>>::value && ...),
                "no tsb::Codec for an argument type: include its tsbridge/codecs/<kind>.hpp");
  static_assert(std::is_void_v<R> || HasCodec<std::decay_t<R>>::value,
                "no tsb::Codec for the return type: include its tsbridge/codecs/<kind>.hpp");
  using Data = detail::RegisteredFunction<R, Args...>;

  const std::string shown = name != nullptr ? name : "(null)";
  if (name == nullptr || fn == nullptr) {
    Keep(tsb_status_new(TSB_ERR_INVALID_ARGUMENT,
                        ("function '" + shown + "': NULL name or function").c_str()));
    return *this;
  }
  if (arg_names.size() != sizeof...(Args)) {
    Keep(tsb_status_new(TSB_ERR_INVALID_ARGUMENT,
                        ("function '" + shown + "': " + std::to_string(arg_names.size()) +
                         " argument names for " + std::to_string(sizeof...(Args)) +
                         " arguments")
                            .c_str()));
    return *this;
  }
  for (const char* arg_name : arg_names) {
    if (arg_name == nullptr) {
      Keep(tsb_status_new(TSB_ERR_INVALID_ARGUMENT,
                          ("function '" + shown + "': NULL argument name").c_str()));
      return *this;
    }
  }

  // Copies: a codec's name() is a string_view, not promised to end in NUL.
  const std::vector<std::string> type_names{std::string(Codec<std::decay_t<Args>>::name())...};
  std::vector<const char*> arg_types;
  for (const std::string& type_name : type_names) arg_types.push_back(type_name.c_str());
  // A registered record named by `returns` (checked by the core when it
  // parses it) replaces the structural type of R.
  const std::string return_type = returns != nullptr ? returns : detail::ReturnTypeName<R>();

  const std::vector<const char*> arg_name_list(arg_names);
  auto data = std::make_unique<Data>(
      Data{fn, shown, std::vector<std::string>(arg_names.begin(), arg_names.end())});
  // function_raw owns data from here on: it frees it if registration fails.
  return function_raw(name, arg_name_list, arg_types, return_type.c_str(), &Data::Call,
                      data.release(), &Data::Free);
}

}  // namespace tsb

#endif  // TSBRIDGE_REGISTRAR_IMPL_HPP_
