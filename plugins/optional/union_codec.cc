#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "plugins/optional/optional_codecs.h"
#include "tsbridge/plugin/untyped.hpp"

namespace tsb {

absl::StatusOr<c10::IValue> UnionCodec::Coerce(const c10::IValue& value,
                                               const TypeInfo& expected) const {
  std::vector<const TypeInfo*> members;
  members.reserve(expected.contained.size());
  for (int32_t index : expected.contained) {
    TSB_ASSIGN_OR_RETURN(const TypeInfo* member, FindType(index));
    members.push_back(member);
  }

  // 1. Its own type is a member: nothing to decide. (A value whose type
  // has no codec, or an untyped one, simply goes on to step 2.)
  absl::StatusOr<const TypeInfo*> own = TypeOfValue(value);
  if (own.ok()) {
    for (const TypeInfo* member : members) {
      if (member->index == (*own)->index) return value;
    }
  }

  // 2. Try every member; failures are expected and stay here.
  std::vector<std::pair<const TypeInfo*, c10::IValue>> accepted;
  absl::Status deep_failure;
  int deep_failures = 0;
  for (const TypeInfo* member : members) {
    absl::StatusOr<c10::IValue> converted = CoerceTo(value, *member);
    if (converted.ok()) {
      accepted.emplace_back(member, *std::move(converted));
    } else if (!IsTypeError(converted.status())) {
      return converted.status();  // not a mismatch: a real failure
    } else if (!PathOf(converted.status()).empty()) {
      ++deep_failures;
      deep_failure = converted.status();
    }
  }
  if (accepted.size() == 1) return std::move(accepted[0].second);

  // 3. Several members accept it: the host must say which. A host's
  // untyped value (JSON 1 reads as int and as float, [1, 2] as a List and a
  // Tuple) is what the host reads it as by itself (int 1, a List), under
  // this same rule.
  // JSON's "NaN" and "Infinity" are a float's form that a complex accepts
  // too, but read by themselves they are strings: where no member is str,
  // they are the float member's, as PyTorch makes float('inf') a float.
  if (accepted.size() > 1 && IsUntyped(value)) {
    TSB_ASSIGN_OR_RETURN(c10::IValue natural, NaturalValue(value));
    absl::StatusOr<c10::IValue> chosen = Coerce(natural, expected);
    if (chosen.ok() || !natural.isString()) return chosen;
    for (auto& [member, converted] : accepted) {
      if (member->kind == TSB_KIND_FLOAT) return std::move(converted);
    }
    return chosen;
  }
  // A host's List[Any] (Dict[str, Any]) is also a Tuple (NamedTuple) to
  // coercion: where one member is of the value's own kind, it is that one's.
  if (accepted.size() > 1 && (value.isList() || value.isGenericDict())) {
    const tsb_kind own = value.isList() ? TSB_KIND_LIST : TSB_KIND_DICT;
    auto same = [&](const auto& a) { return a.first->kind == own; };
    if (std::count_if(accepted.begin(), accepted.end(), same) == 1) {
      return std::move(std::find_if(accepted.begin(), accepted.end(), same)->second);
    }
  }
  if (accepted.size() > 1) {
    return TypeError(absl::StrCat(
        "ambiguous: ", DescribeValue(value), " matches ", expected.annotation,
        " members ",
        absl::StrJoin(accepted, ", ", [](std::string* out, const auto& match) {
          absl::StrAppend(out, match.first->annotation);
        })));
  }

  // 4. None does.
  if (deep_failures == 1) return deep_failure;
  return Mismatch(expected, value);
}

}  // namespace tsb
