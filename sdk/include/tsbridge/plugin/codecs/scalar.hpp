// tsb::Codec for arithmetic types: bool ⇄ `bool`, every other integer type ⇄
// `int`, float and double ⇄ `float`, c10::complex and std::complex ⇄ `complex`.
//
// TorchScript has one integer (int64) and one floating type (double); a
// narrower C++ type is range-checked on the way in. FromIValue does not
// widen (an int is not a float here): the core has already coerced a
// function's arguments to their declared types.
#ifndef TSBRIDGE_CODECS_SCALAR_HPP_
#define TSBRIDGE_CODECS_SCALAR_HPP_

#include <complex>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include <c10/util/complex.h>

#include "tsbridge/plugin/codec.hpp"

namespace tsb {

template <>
struct Codec<bool> {
  static constexpr std::string_view name() { return "bool"; }
  static c10::TypePtr type() { return c10::BoolType::get(); }
  static bool Matches(const c10::IValue& value) { return value.isBool(); }
  static c10::IValue ToIValue(bool value) { return value; }
  static absl::StatusOr<bool> FromIValue(const c10::IValue& value) {
    if (!value.isBool()) return detail::Mismatch<bool>(value);
    return value.toBool();
  }
};

namespace detail {
template <typename T>
inline constexpr bool kIsInteger = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// Whether an int64 fits T, without signed/unsigned comparison traps.
template <typename T>
constexpr bool FitsIn(int64_t i) {
  if constexpr (std::is_signed_v<T>) {
    return i >= static_cast<int64_t>(std::numeric_limits<T>::min()) &&
           i <= static_cast<int64_t>(std::numeric_limits<T>::max());
  } else {
    return i >= 0 && static_cast<uint64_t>(i) <= std::numeric_limits<T>::max();
  }
}
}  // namespace detail

template <typename T>
struct Codec<T, std::enable_if_t<detail::kIsInteger<T>>> {
  static constexpr std::string_view name() { return "int"; }
  static c10::TypePtr type() { return c10::IntType::get(); }
  static bool Matches(const c10::IValue& value) { return value.isInt(); }

  // Only a 64-bit unsigned value can fail; it throws rather than wrap, and
  // a registered function's trampoline turns that into a status.
  static c10::IValue ToIValue(T value) {
    if constexpr (std::is_unsigned_v<T> && sizeof(T) >= sizeof(int64_t)) {
      if (value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        throw std::out_of_range("tsb::Codec: " + std::to_string(value) +
                                " does not fit TorchScript's int (int64)");
      }
    }
    return c10::IValue(static_cast<int64_t>(value));
  }

  static absl::StatusOr<T> FromIValue(const c10::IValue& value) {
    if (!value.isInt()) return detail::Mismatch<T>(value);
    const int64_t i = value.toInt();
    if (!detail::FitsIn<T>(i)) {
      return detail::Mismatch<T>(
          value, "out of range [" + std::to_string(std::numeric_limits<T>::min()) + ", " +
                     std::to_string(std::numeric_limits<T>::max()) + "]");
    }
    return static_cast<T>(i);
  }
};

template <typename T>
struct Codec<T, std::enable_if_t<std::is_floating_point_v<T>>> {
  static constexpr std::string_view name() { return "float"; }
  static c10::TypePtr type() { return c10::FloatType::get(); }
  static bool Matches(const c10::IValue& value) { return value.isDouble(); }
  static c10::IValue ToIValue(T value) { return c10::IValue(static_cast<double>(value)); }
  // A float target rounds, as TorchScript does when it stores into float32.
  static absl::StatusOr<T> FromIValue(const c10::IValue& value) {
    if (!value.isDouble()) return detail::Mismatch<T>(value);
    return static_cast<T>(value.toDouble());
  }
};

namespace detail {
// One implementation for c10::complex<F> and std::complex<F>.
template <typename Complex, typename F>
struct ComplexCodec {
  static constexpr std::string_view name() { return "complex"; }
  static c10::TypePtr type() { return c10::ComplexType::get(); }
  static bool Matches(const c10::IValue& value) { return value.isComplexDouble(); }
  static c10::IValue ToIValue(const Complex& value) {
    return c10::IValue(c10::complex<double>(value.real(), value.imag()));
  }
  static absl::StatusOr<Complex> FromIValue(const c10::IValue& value) {
    if (!value.isComplexDouble()) return Mismatch<Complex>(value);
    const c10::complex<double> c = value.toComplexDouble();
    return Complex(static_cast<F>(c.real()), static_cast<F>(c.imag()));
  }
};
}  // namespace detail

template <typename F>
struct Codec<c10::complex<F>, std::enable_if_t<std::is_floating_point_v<F>>>
    : detail::ComplexCodec<c10::complex<F>, F> {};
template <typename F>
struct Codec<std::complex<F>, std::enable_if_t<std::is_floating_point_v<F>>>
    : detail::ComplexCodec<std::complex<F>, F> {};

}  // namespace tsb

#endif  // TSBRIDGE_CODECS_SCALAR_HPP_
