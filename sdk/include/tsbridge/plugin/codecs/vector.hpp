// tsb::Codec<std::vector<T>> ⇄ TorchScript `List[T]`.
#ifndef TSBRIDGE_CODECS_VECTOR_HPP_
#define TSBRIDGE_CODECS_VECTOR_HPP_

#include <vector>

#include <ATen/core/List.h>

#include "tsbridge/plugin/codec.hpp"

namespace tsb {

template <typename T, typename Allocator>
struct Codec<std::vector<T, Allocator>> {
  static constexpr std::string_view name() {
    return detail::GenericName<detail::kList, detail::kNameOf<T>>::value;
  }
  static c10::TypePtr type() {
    static const c10::TypePtr list_type = c10::ListType::create(Codec<T>::type());
    return list_type;
  }
  static bool Matches(const c10::IValue& value) { return value.isList(); }

  // The list carries its element type even when empty: an empty
  // std::vector<int64_t> is a List[int], never a List[Any].
  static c10::IValue ToIValue(const std::vector<T, Allocator>& value) {
    c10::impl::GenericList list(Codec<T>::type());
    list.reserve(value.size());
    for (const auto& element : value) list.push_back(Codec<T>::ToIValue(element));
    return c10::IValue(std::move(list));
  }

  static absl::StatusOr<std::vector<T, Allocator>> FromIValue(const c10::IValue& value) {
    if (!value.isList()) return detail::Mismatch<std::vector<T, Allocator>>(value);
    c10::ArrayRef<c10::IValue> elements = value.toListRef();
    std::vector<T, Allocator> result;
    result.reserve(elements.size());
    for (size_t i = 0; i < elements.size(); ++i) {
      absl::StatusOr<T> element = Codec<T>::FromIValue(elements[i]);
      if (!element.ok()) return WithPath(std::move(element).status(), IndexSegment(i));
      result.push_back(*std::move(element));
    }
    return result;
  }
};

}  // namespace tsb

#endif  // TSBRIDGE_CODECS_VECTOR_HPP_
