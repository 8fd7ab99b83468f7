// Shared helpers for the SDK suites: a leak-checking fixture, deep equality
// of C++ values (tensors by identity: they must cross without a copy), and
// the round trip C++ → IValue → boundary → IValue → C++.
#ifndef TSBRIDGE_TESTS_SDK_SDK_TEST_UTIL_H_
#define TSBRIDGE_TESTS_SDK_SDK_TEST_UTIL_H_

#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>

#include <gtest/gtest.h>

#include "tests/testing/abi_test.h"
#include "tsbridge/plugin/codec.hpp"
#include "tsbridge/plugin/kind_codec.hpp"
#include "core/value/convert.h"
#include "tsbridge/tsbridge.h"
#include "tsbridge/host/tsbridge.hpp"

namespace tsb::sdk_testing {

// Every test ends with as many live handles as it started with.
using SdkTest = ::tsb::testing::AbiTest;

template <typename T, typename = void>
inline constexpr bool kIsRange = false;
template <typename T>
inline constexpr bool kIsRange<T, std::void_t<decltype(std::declval<const T&>().begin()),
                                              typename T::value_type>> = true;
template <typename T, typename = void>
inline constexpr bool kIsMap = false;
template <typename T>
inline constexpr bool kIsMap<T, std::void_t<typename T::mapped_type>> = true;
template <typename T, typename = void>
inline constexpr bool kIsTupleLike = false;
template <typename T>
inline constexpr bool kIsTupleLike<T, std::void_t<decltype(std::tuple_size<T>::value)>> = true;
template <typename T, typename = void>
inline constexpr bool kIsOptional = false;
template <typename T>
inline constexpr bool kIsOptional<T, std::void_t<decltype(std::declval<const T&>().has_value())>> =
    true;
template <typename T>
inline constexpr bool kIsVariant = false;
template <typename... Ts>
inline constexpr bool kIsVariant<std::variant<Ts...>> = true;

// Deep equality that recurses into every container the codecs support;
// Tensors compare by identity, everything else with ==.
template <typename T>
bool Same(const T& a, const T& b) {
  if constexpr (std::is_same_v<T, at::Tensor>) {
    return a.is_same(b);
  } else if constexpr (std::is_same_v<T, std::string>) {
    return a == b;
  } else if constexpr (kIsMap<T>) {
    if (a.size() != b.size()) return false;
    for (const auto& [key, value] : a) {
      auto found = b.find(key);
      if (found == b.end() || !Same(value, found->second)) return false;
    }
    return true;
  } else if constexpr (kIsRange<T>) {
    if (a.size() != b.size()) return false;
    for (auto i = a.begin(), j = b.begin(); i != a.end(); ++i, ++j) {
      if (!Same<typename T::value_type>(*i, *j)) return false;
    }
    return true;
  } else if constexpr (kIsVariant<T>) {
    if (a.index() != b.index()) return false;
    return std::visit(
        [&b](const auto& x) { return Same(x, std::get<std::decay_t<decltype(x)>>(b)); }, a);
  } else if constexpr (kIsTupleLike<T>) {
    return std::apply(
        [&b](const auto&... x) {
          return std::apply([&](const auto&... y) { return (Same(x, y) && ...); }, b);
        },
        a);
  } else if constexpr (kIsOptional<T>) {
    if (a.has_value() != b.has_value()) return false;
    return !a.has_value() || Same(*a, *b);
  } else {
    return a == b;
  }
}

// The type index the core gives a TorchScript annotation (TSB_TYPE_INVALID
// if it does not parse).
inline int32_t TypeIndexOf(std::string_view annotation) {
  int32_t index = TSB_TYPE_INVALID;
  tsb_status* status = tsb_type_parse(std::string(annotation).c_str(), &index);
  tsb_status_free(status);
  return index;
}

// C++ → IValue → boundary → IValue → C++. `boundary_type` receives the type
// index the value crossed with.
template <typename T>
absl::StatusOr<T> ThroughBoundary(const T& value, int32_t* boundary_type = nullptr) {
  tsb_any boundary{};
  TSB_RETURN_IF_ERROR(ToBoundary(Codec<T>::ToIValue(value), &boundary));
  if (boundary_type != nullptr) *boundary_type = boundary.type_index;
  absl::StatusOr<c10::IValue> back = ToIValue(boundary);
  tsb_any_release(&boundary);
  if (!back.ok()) return back.status();
  return Codec<T>::FromIValue(*back);
}

// The round trip gives back an equal value, and the value crossed with the
// type the codec names (for concrete types: Optional and Union cross as the
// member's own type).
template <typename T>
void ExpectRoundTrip(const T& value, bool concrete_type = true) {
  int32_t boundary_type = TSB_TYPE_INVALID;
  absl::StatusOr<T> back = ThroughBoundary(value, &boundary_type);
  ASSERT_TRUE(back.ok()) << Codec<T>::name() << ": " << back.status();
  EXPECT_TRUE(Same(value, *back)) << Codec<T>::name();
  if (concrete_type) {
    EXPECT_EQ(boundary_type, TypeIndexOf(Codec<T>::name())) << Codec<T>::name();
  }
}

// A failed conversion's path and detail, split as the ABI splits them.
struct Failure {
  std::string path;
  std::string detail;
};
template <typename T>
Failure FailureOf(const absl::StatusOr<T>& result) {
  if (result.ok()) return {"<ok>", "<ok>"};
  EXPECT_TRUE(IsTypeError(result.status())) << result.status();
  return {PathOf(result.status()), std::string(result.status().message())};
}

}  // namespace tsb::sdk_testing

#endif  // TSBRIDGE_TESTS_SDK_SDK_TEST_UTIL_H_
