// tsb::Codec<std::tuple<Ts...>> and tsb::Codec<std::pair<A, B>> ⇄
// TorchScript `Tuple[Ts...]`.
#ifndef TSBRIDGE_CODECS_TUPLE_HPP_
#define TSBRIDGE_CODECS_TUPLE_HPP_

#include <tuple>
#include <utility>
#include <vector>

#include "tsbridge/plugin/codec.hpp"

namespace tsb {
namespace detail {

// Shared by std::tuple and std::pair: Cpp is built from a std::tuple<Ts...>
// and read with std::get.
template <typename Cpp, typename... Ts>
struct TupleCodec {
  static constexpr std::string_view name() {
    return GenericName<kTuple, kNameOf<Ts>...>::value;
  }
  static c10::TypePtr type() {
    static const c10::TypePtr tuple_type = c10::TupleType::create({Codec<Ts>::type()...});
    return tuple_type;
  }
  static bool Matches(const c10::IValue& value) {
    return value.isTuple() && value.toTupleRef().elements().size() == sizeof...(Ts);
  }

  // The tuple keeps its declared type: left to itself, LibTorch would type
  // (t, None) as Tuple[Tensor, NoneType] instead of Tuple[Tensor, Optional[Tensor]].
  static c10::IValue ToIValue(const Cpp& value) {
    return ToIValueImpl(value, std::index_sequence_for<Ts...>());
  }

  // Built as `as`, a record with the same element types (the caller's
  // promise: tsb::ToIValueAs passes the registered record it converts to).
  static c10::IValue ToIValue(const Cpp& value, const c10::TypePtr& as) {
    return ToIValueImpl(value, as, std::index_sequence_for<Ts...>());
  }

  static absl::StatusOr<Cpp> FromIValue(const c10::IValue& value) {
    if (!Matches(value)) return Mismatch<Cpp>(value);
    absl::StatusOr<std::tuple<Ts...>> parts = FromIValues<Ts...>(
        value.toTupleRef().elements().asArrayRef(), [](size_t i) { return IndexSegment(i); });
    if (!parts.ok()) return std::move(parts).status();
    return std::make_from_tuple<Cpp>(*std::move(parts));
  }

 private:
  template <std::size_t... I>
  static c10::IValue ToIValueImpl(const Cpp& value, std::index_sequence<I...> seq) {
    return ToIValueImpl(value, type(), seq);
  }
  template <std::size_t... I>
  static c10::IValue ToIValueImpl([[maybe_unused]] const Cpp& value, const c10::TypePtr& as,
                                  std::index_sequence<I...>) {
    std::vector<c10::IValue> elements;  // moved in, not copied from an initializer list
    elements.reserve(sizeof...(Ts));
    (elements.push_back(Codec<Ts>::ToIValue(std::get<I>(value))), ...);
    return c10::IValue(c10::ivalue::Tuple::createNamed(std::move(elements), as));
  }
};

}  // namespace detail

template <typename... Ts>
struct Codec<std::tuple<Ts...>> : detail::TupleCodec<std::tuple<Ts...>, Ts...> {};

template <typename A, typename B>
struct Codec<std::pair<A, B>> : detail::TupleCodec<std::pair<A, B>, A, B> {};

}  // namespace tsb

#endif  // TSBRIDGE_CODECS_TUPLE_HPP_
