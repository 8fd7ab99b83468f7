// KindCodec for str: a handle on the way out; a handle or a borrowed C string
// on the way in.
#include "core/codecs/builtin_codecs.h"
#include "tsbridge/plugin/kind_codec.hpp"

namespace tsb {
namespace {

class StrCodec final : public KindCodec {
 public:
  tsb_kind kind() const override { return TSB_KIND_STR; }
  c10::TypeKind type_kind() const override { return c10::TypeKind::StringType; }
  absl::StatusOr<c10::IValue> Decode(const tsb_any& value) const override {
    if ((value.flags & TSB_FLAG_BORROWED_STR) == 0) return KindCodec::Decode(value);
    if (value.u.borrowed_str == nullptr) {
      return absl::InvalidArgumentError("malformed value: borrowed str is NULL");
    }
    return c10::IValue(std::string(value.u.borrowed_str));
  }
  absl::StatusOr<c10::IValue> Coerce(const c10::IValue& value,
                                     const TypeInfo& expected) const override {
    if (value.isString()) return value;
    return Mismatch(expected, value);
  }
};

}  // namespace

std::unique_ptr<KindCodec> MakeStrCodec() { return std::make_unique<StrCodec>(); }

}  // namespace tsb
