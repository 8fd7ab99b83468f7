#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "plugins/optional/optional_codecs.h"

namespace tsb {
namespace {

// "expected int, got str \"x\"" -> "expected Optional[int], got str \"x\"",
// keeping whatever follows (", which does not name a device"). Errors with a
// path, and messages of another shape, are returned as they are.
absl::Status Restate(absl::Status inner, const TypeInfo& element,
                     const TypeInfo& optional) {
  if (!IsTypeError(inner) || !PathOf(inner).empty()) return inner;
  absl::string_view message = inner.message();
  if (!absl::ConsumePrefix(&message, absl::StrCat("expected ", element.annotation)) ||
      !absl::StartsWith(message, ", got ")) {
    return inner;
  }
  return TypeError(absl::StrCat("expected ", optional.annotation, message));
}

}  // namespace

absl::StatusOr<c10::IValue> OptionalCodec::Coerce(const c10::IValue& value,
                                                  const TypeInfo& expected) const {
  if (value.isNone()) return value;
  TSB_ASSIGN_OR_RETURN(const TypeInfo* element, FindType(expected.contained[0]));
  absl::StatusOr<c10::IValue> result = CoerceTo(value, *element);
  if (result.ok()) return result;
  return Restate(std::move(result).status(), *element, expected);
}

}  // namespace tsb
