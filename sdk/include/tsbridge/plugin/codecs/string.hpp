// tsb::Codec<std::string> ⇄ TorchScript `str`.
#ifndef TSBRIDGE_CODECS_STRING_HPP_
#define TSBRIDGE_CODECS_STRING_HPP_

#include <string>

#include "tsbridge/plugin/codec.hpp"

namespace tsb {

// Bytes are carried as they are (embedded NULs included); TorchScript does
// not check UTF-8 either.
template <>
struct Codec<std::string> {
  static constexpr std::string_view name() { return "str"; }
  static c10::TypePtr type() { return c10::StringType::get(); }
  static bool Matches(const c10::IValue& value) { return value.isString(); }
  static c10::IValue ToIValue(std::string value) { return c10::IValue(std::move(value)); }
  static absl::StatusOr<std::string> FromIValue(const c10::IValue& value) {
    if (!value.isString()) return detail::Mismatch<std::string>(value);
    return value.toStringRef();
  }
};

}  // namespace tsb

#endif  // TSBRIDGE_CODECS_STRING_HPP_
