// tsb::Codec<std::variant<Ts...>> ⇄ TorchScript `Union[Ts...]`. In LibTorch
// a Union value is the member's value itself: Union is a static type only.
#ifndef TSBRIDGE_CODECS_VARIANT_HPP_
#define TSBRIDGE_CODECS_VARIANT_HPP_

#include <variant>
#include <vector>

#include "tsbridge/plugin/codec.hpp"

namespace tsb {

template <typename... Ts>
struct Codec<std::variant<Ts...>> {
  using Variant = std::variant<Ts...>;

  static constexpr std::string_view name() {
    return detail::GenericName<detail::kUnion, detail::kNameOf<Ts>...>::value;
  }
  static c10::TypePtr type() {
    static const c10::TypePtr union_type = c10::UnionType::create({Codec<Ts>::type()...});
    return union_type;
  }
  static bool Matches(const c10::IValue& value) { return (Codec<Ts>::Matches(value) || ...); }

  static c10::IValue ToIValue(const Variant& value) {
    return std::visit(
        [](const auto& member) {
          return Codec<std::decay_t<decltype(member)>>::ToIValue(member);
        },
        value);
  }

  // Type-directed: the first member whose kind the value has, in declaration
  // order. Kind checks are shallow, so when several members share a kind
  // (List[int] and List[str]) the first that converts wins, and if none
  // does, the error is the first candidate's (it says which element failed).
  static absl::StatusOr<Variant> FromIValue(const c10::IValue& value) {
    absl::StatusOr<Variant> result = detail::Mismatch<Variant>(value);
    bool candidate_seen = false;
    auto try_member = [&](auto tag) {
      using Member = typename decltype(tag)::type;
      if (result.ok() || !Codec<Member>::Matches(value)) return;
      absl::StatusOr<Member> member = Codec<Member>::FromIValue(value);
      if (member.ok()) {
        result = Variant(std::in_place_type<Member>, *std::move(member));
      } else if (!candidate_seen) {
        result = std::move(member).status();
      }
      candidate_seen = true;
    };
    (try_member(detail::TypeTag<Ts>()), ...);
    return result;
  }
};

}  // namespace tsb

#endif  // TSBRIDGE_CODECS_VARIANT_HPP_
