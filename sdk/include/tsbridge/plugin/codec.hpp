// tsb::Codec<T>: conversion between a C++ type and c10::IValue, chosen at
// compile time, for plugin and binding authors.
//
// This header holds the contract and the compile-time string machinery only.
// Each kind has its own opt-in header, as in nanobind, so a binding compiles
// only what it converts (or include tsbridge/plugin/codecs/all.hpp):
//
//   codecs/tensor.hpp    at::Tensor                          Tensor
//   codecs/scalar.hpp    bool, integers, floating, complex   bool, int, float, complex
//   codecs/string.hpp    std::string                         str
//   codecs/vector.hpp    std::vector<T>                      List[T]
//   codecs/optional.hpp  std::optional<T>, c10::optional<T>  Optional[T]
//   codecs/tuple.hpp     std::tuple<Ts...>, std::pair        Tuple[Ts...]
//   codecs/map.hpp       std::map, std::unordered_map,       Dict[K, V]
//                        absl::flat_hash_map (any unique-key map)
//   codecs/variant.hpp   std::variant<Ts...>                 Union[Ts...]
//   codecs/hana.hpp      BOOST_HANA_ADAPT_STRUCT structs     NamedTuple
//
// Every specialisation provides:
//   static constexpr std::string_view name();  // "Dict[str, List[int]]"
//   static c10::TypePtr type();                 // the same type, as LibTorch's
//   static bool Matches(const c10::IValue&);    // the value is of this kind
//   static c10::IValue ToIValue(const T&);      // a typed IValue
//   static absl::StatusOr<T> FromIValue(const c10::IValue&);  // never throws
//
// name() is a compile-time constant: errors, schemas and registrations use
// the words LibTorch itself prints, with no formatting at run time. Matches()
// is shallow (a List[str] "matches" std::vector<int64_t>); std::variant uses it
// to pick an alternative by the value's own kind.
#ifndef TSBRIDGE_CODEC_HPP_
#define TSBRIDGE_CODEC_HPP_

#include <array>
#include <atomic>
#include <cstddef>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include <ATen/core/ivalue.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tsbridge/plugin/kind_codec.hpp"

namespace tsb {

template <typename T, typename Enable = void>
struct Codec;

// True when a codec for T is visible (its kind header is included).
template <typename T, typename = void>
struct HasCodec : std::false_type {};
template <typename T>
struct HasCodec<T, std::void_t<decltype(Codec<T>::name())>> : std::true_type {};

namespace detail {

// ------------------------------------------------- compile-time strings

// N characters and a NUL, so data() is also a C string.
template <std::size_t N>
struct FixedString {
  char chars[N + 1] = {};
  constexpr std::string_view view() const { return std::string_view(chars, N); }
};

// Strings built below live in static constexpr members of class templates:
// a string_view into them is valid for the whole program, and templates that
// take `const std::string_view&` parameters can compose them further.
template <typename T>
inline constexpr std::string_view kNameOf = Codec<T>::name();

inline constexpr std::string_view kList = "List";
inline constexpr std::string_view kDict = "Dict";
inline constexpr std::string_view kTuple = "Tuple";
inline constexpr std::string_view kOptional = "Optional";
inline constexpr std::string_view kUnion = "Union";

// "Head[A, B, ...]", the spelling of every generic TorchScript type; an empty
// argument list is "Head[()]" (LibTorch's empty Tuple).
template <const std::string_view& Head, const std::string_view&... Args>
struct GenericName {
 private:
  static constexpr std::size_t kCount = sizeof...(Args);
  static constexpr std::size_t kSize =
      Head.size() + 2 + (kCount == 0 ? 2 : (Args.size() + ... + 0) + 2 * (kCount - 1));

  static constexpr FixedString<kSize> Build() {
    FixedString<kSize> out;
    std::size_t at = 0;
    auto append = [&](std::string_view part) {
      for (char c : part) out.chars[at++] = c;
    };
    append(Head);
    append("[");
    if constexpr (kCount == 0) {
      append("()");
    } else {
      std::size_t i = 0;
      ((append(i++ == 0 ? std::string_view() : std::string_view(", ")), append(Args)), ...);
    }
    append("]");
    return out;
  }
  static constexpr FixedString<kSize> kStorage = Build();

 public:
  static constexpr std::string_view value = kStorage.view();
};

// A type carried as a value, for folds over a pack (std::type_identity is C++20).
template <typename T>
struct TypeTag {
  using type = T;
};

// ------------------------------------------------------------ errors

// "expected List[int], got str \"x\"": the one spelling of a mismatch.
template <typename T>
absl::Status Mismatch(const c10::IValue& found, std::string_view note = {}) {
  std::string message = "expected ";
  message.append(Codec<T>::name());
  message.append(", got ");
  message.append(DescribeValue(found));
  if (!note.empty()) message.append(" (").append(note).append(")");
  return TypeError(message);
}

// Converts values[i] with Codec<Ts...[i]> for every i. The first failure
// wins, with segment(i) prepended to its path ("[1]", "field 'x'",
// "argument 'col'"). The caller has checked values.size() == sizeof...(Ts).
template <typename... Ts, typename Segment, std::size_t... I>
absl::StatusOr<std::tuple<Ts...>> FromIValuesImpl([[maybe_unused]] c10::ArrayRef<c10::IValue> values,
                                                  [[maybe_unused]] const Segment& segment,
                                                  std::index_sequence<I...>) {
  // Braced initialisation runs left to right; the success path formats nothing.
  std::tuple<absl::StatusOr<Ts>...> parts{Codec<Ts>::FromIValue(values[I])...};
  absl::Status error;
  ((error.ok() && !std::get<I>(parts).ok()
        ? (void)(error = WithPath(std::get<I>(parts).status(), segment(I)))
        : (void)0),
   ...);
  if (!error.ok()) return error;
  return std::tuple<Ts...>(*std::move(std::get<I>(parts))...);
}

template <typename... Ts, typename Segment>
absl::StatusOr<std::tuple<Ts...>> FromIValues(c10::ArrayRef<c10::IValue> values,
                                              const Segment& segment) {
  return FromIValuesImpl<Ts...>(values, segment, std::index_sequence_for<Ts...>());
}

}  // namespace detail

// Codec<T>::ToIValue built directly as *as (nullptr: T's own type), a registered record of T's
// structure (tsbridge.tensor_pair for std::tuple<Tensor, Tensor>): one named
// tuple, where ToIValue and a coerce to the record made two. Codecs that
// cannot (all but tuples) build their own type; coerce that as before.
template <typename T, typename = void>
struct BuildsAs : std::false_type {};
template <typename T>
struct BuildsAs<T, std::void_t<decltype(Codec<T>::ToIValue(std::declval<const T&>(),
                                                           std::declval<c10::TypePtr>()))>>
    : std::true_type {};

template <typename T>
c10::IValue ToIValueAs(const T& value, [[maybe_unused]] const c10::TypePtr* as) {
  if constexpr (BuildsAs<T>::value) {
    if (as != nullptr) return Codec<T>::ToIValue(value, *as);
  }
  return Codec<T>::ToIValue(value);
}

namespace detail {

// Whether T's own type (Codec<T>::type()) built as `expected` is of that
// type by construction: the same type, or (a codec that BuildsAs) a record
// of the same arity whose every element is T's element type or an abstract
// one (Optional, Union, Any) T's element is a subtype of. Then CoerceTo
// would return the built value unchanged.
template <typename T>
bool ComputeBuildsExactly(const TypeInfo& expected) {
  const c10::TypePtr own = Codec<T>::type();
  if (*own == *expected.type) return true;
  if constexpr (!BuildsAs<T>::value) {
    return false;
  } else {
    const auto* tuple = own->template castRaw<c10::TupleType>();
    if (tuple == nullptr || (expected.kind != TSB_KIND_TUPLE && expected.kind != TSB_KIND_NAMEDTUPLE) ||
        tuple->elements().size() != expected.contained.size()) {
      return false;
    }
    for (size_t i = 0; i < expected.contained.size(); ++i) {
      absl::StatusOr<const TypeInfo*> want = FindType(expected.contained[i]);
      if (!want.ok()) return false;
      const c10::TypePtr& have = tuple->elements()[i];
      if (*have == *(*want)->type) continue;
      if (!(*want)->codec->is_abstract() || !have->isSubtypeOf(*(*want)->type)) return false;
    }
    return true;
  }
}

}  // namespace detail

// Whether Codec<T>::ToIValue, built as `expected` (ToIValueAs), needs no
// coerce to it: the codec contract (a codec builds its own type()) makes
// the value of that type. Worked out once per T and type; types are never
// un-interned, so the answer for a TypeInfo never changes.
template <typename T>
bool BuildsExactly(const TypeInfo& expected) {
  static std::atomic<const TypeInfo*> yes{nullptr}, no{nullptr};
  if (yes.load(std::memory_order_acquire) == &expected) return true;
  if (no.load(std::memory_order_acquire) == &expected) return false;
  const bool exact = detail::ComputeBuildsExactly<T>(expected);
  (exact ? yes : no).store(&expected, std::memory_order_release);
  return exact;
}

// `value` as a value of the registered type `expected`: built as it
// (ToIValueAs), and coerced only when the codec does not build exactly it
// (BuildsExactly). A value a codec built as its registered type is never
// checked a second time.
template <typename T>
absl::StatusOr<c10::IValue> ToIValueOf(const T& value, const TypeInfo& expected) {
  c10::IValue built = ToIValueAs(value, &expected.type);
  if (BuildsExactly<T>(expected)) return built;
  return CoerceTo(built, expected);
}

}  // namespace tsb

#endif  // TSBRIDGE_CODEC_HPP_
