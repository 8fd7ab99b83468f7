// tsb::Codec<std::optional<T>> and tsb::Codec<c10::optional<T>> ⇄
// TorchScript `Optional[T]`. In LibTorch an Optional value is None or the
// value itself: Optional is a static type only.
#ifndef TSBRIDGE_CODECS_OPTIONAL_HPP_
#define TSBRIDGE_CODECS_OPTIONAL_HPP_

#include <optional>

#include <c10/util/Optional.h>

#include "tsbridge/plugin/codec.hpp"

namespace tsb {
namespace detail {

template <typename Opt, typename T>
struct OptionalCodec {
  static constexpr std::string_view name() {
    return GenericName<kOptional, kNameOf<T>>::value;
  }
  static c10::TypePtr type() {
    static const c10::TypePtr optional_type = c10::OptionalType::create(Codec<T>::type());
    return optional_type;
  }
  static bool Matches(const c10::IValue& value) {
    return value.isNone() || Codec<T>::Matches(value);
  }
  static c10::IValue ToIValue(const Opt& value) {
    return value.has_value() ? Codec<T>::ToIValue(*value) : c10::IValue();
  }
  static absl::StatusOr<Opt> FromIValue(const c10::IValue& value) {
    if (value.isNone()) return Opt();
    // A value of another kind is "expected Optional[int], got str": the
    // error names the whole type, not only T.
    if (!Codec<T>::Matches(value)) return Mismatch<Opt>(value);
    absl::StatusOr<T> inner = Codec<T>::FromIValue(value);
    if (!inner.ok()) return std::move(inner).status();
    return Opt(*std::move(inner));
  }
};

}  // namespace detail

template <typename T>
struct Codec<std::optional<T>> : detail::OptionalCodec<std::optional<T>, T> {};

// c10::optional is its own class in LibTorch 1.x and an alias of
// std::optional in 2.x; the condition keeps the two from colliding.
template <typename T>
struct Codec<c10::optional<T>,
             std::enable_if_t<!std::is_same_v<c10::optional<T>, std::optional<T>>>>
    : detail::OptionalCodec<c10::optional<T>, T> {};

}  // namespace tsb

#endif  // TSBRIDGE_CODECS_OPTIONAL_HPP_
