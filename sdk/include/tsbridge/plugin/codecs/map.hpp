// tsb::Codec for maps ⇄ TorchScript `Dict[K, V]`: std::map,
// std::unordered_map, absl::flat_hash_map, and any other map with unique
// keys and the same interface (key_type, mapped_type, try_emplace). This
// header names no Abseil container, so it adds no link dependency.
//
// A TorchScript Dict keeps insertion order. Out, it follows the map's own
// iteration order (sorted for std::map); in, items are inserted in the
// Dict's order, which an ordered or hashed map then rearranges as it must.
#ifndef TSBRIDGE_CODECS_MAP_HPP_
#define TSBRIDGE_CODECS_MAP_HPP_

#include <string>
#include <type_traits>
#include <utility>

#include <ATen/core/Dict.h>

#include "tsbridge/plugin/codec.hpp"

namespace tsb {
namespace detail {

template <typename M, typename = void>
inline constexpr bool kIsUniqueKeyMap = false;
template <typename M>
inline constexpr bool kIsUniqueKeyMap<
    M, std::void_t<typename M::key_type, typename M::mapped_type,
                   decltype(std::declval<M&>().try_emplace(
                       std::declval<typename M::key_type>(),
                       std::declval<typename M::mapped_type>())),
                   decltype(std::declval<const M&>().begin())>> = true;

// The key types TorchScript allows in a Dict.
constexpr bool IsDictKeyName(std::string_view name) {
  return name == "str" || name == "int" || name == "float" || name == "complex" ||
         name == "bool" || name == "Tensor";
}

// How a key reads in a path, spelled as the core spells it: key "b", key 3.
inline std::string KeyRepr(const c10::IValue& key) {
  if (key.isString()) return "\"" + key.toStringRef() + "\"";
  if (key.isInt()) return std::to_string(key.toInt());
  return DescribeValue(key);
}

template <typename M, typename = void>
inline constexpr bool kHasReserve = false;
template <typename M>
inline constexpr bool kHasReserve<M, std::void_t<decltype(std::declval<M&>().reserve(1))>> =
    true;

}  // namespace detail

template <typename M>
struct Codec<M, std::enable_if_t<detail::kIsUniqueKeyMap<M>>> {
  using Key = typename M::key_type;
  using Value = typename M::mapped_type;
  static_assert(detail::IsDictKeyName(detail::kNameOf<Key>),
                "TorchScript Dict keys are str, int, float, complex, bool or Tensor");

  static constexpr std::string_view name() {
    return detail::GenericName<detail::kDict, detail::kNameOf<Key>,
                               detail::kNameOf<Value>>::value;
  }
  static c10::TypePtr type() {
    static const c10::TypePtr dict_type =
        c10::DictType::create(Codec<Key>::type(), Codec<Value>::type());
    return dict_type;
  }
  static bool Matches(const c10::IValue& value) { return value.isGenericDict(); }

  static c10::IValue ToIValue(const M& value) {
    c10::impl::GenericDict dict(Codec<Key>::type(), Codec<Value>::type());
    dict.reserve(value.size());
    for (const auto& [key, item] : value) {
      dict.insert(Codec<Key>::ToIValue(key), Codec<Value>::ToIValue(item));
    }
    return c10::IValue(std::move(dict));
  }

  static absl::StatusOr<M> FromIValue(const c10::IValue& value) {
    if (!value.isGenericDict()) return detail::Mismatch<M>(value);
    const c10::impl::GenericDict dict = value.toGenericDict();  // shared, not copied
    M result;
    if constexpr (detail::kHasReserve<M>) result.reserve(dict.size());
    for (const auto& entry : dict) {
      absl::StatusOr<Key> key = Codec<Key>::FromIValue(entry.key());
      if (!key.ok()) {
        return WithPath(std::move(key).status(), KeySegment(detail::KeyRepr(entry.key())));
      }
      absl::StatusOr<Value> item = Codec<Value>::FromIValue(entry.value());
      if (!item.ok()) {
        return WithPath(std::move(item).status(), KeySegment(detail::KeyRepr(entry.key())));
      }
      result.try_emplace(*std::move(key), *std::move(item));
    }
    return result;
  }
};

}  // namespace tsb

#endif  // TSBRIDGE_CODECS_MAP_HPP_
