// KindCodec for Dict[K, V], for every key type LibTorch's DictType accepts (str,
// int, float, bool, Tensor, complex, Device). c10::Dict keeps insertion
// order, and so does every conversion here.
#include "absl/strings/str_cat.h"
#include "core/codecs/builtin_codecs.h"
#include "core/value/convert.h"
#include "tsbridge/plugin/kind_codec.hpp"
#include "core/types/type_registry.h"

namespace tsb {
namespace {

class DictCodec final : public KindCodec {
 public:
  tsb_kind kind() const override { return TSB_KIND_DICT; }
  c10::TypeKind type_kind() const override { return c10::TypeKind::DictType; }

  absl::StatusOr<c10::IValue> Coerce(const c10::IValue& value,
                                     const TypeInfo& expected) const override {
    if (!value.isGenericDict()) return Mismatch(expected, value);
    const TypeRegistry& registry = TypeRegistry::Global();
    const TypeInfo& key_type = *registry.Find(expected.contained[0]);
    const TypeInfo& value_type = *registry.Find(expected.contained[1]);
    c10::impl::GenericDict dict = value.toGenericDict();
    if (*dict.keyType() == *key_type.type && *dict.valueType() == *value_type.type) {
      return value;  // already typed as expected: share
    }
    c10::impl::GenericDict result(key_type.type, value_type.type);
    result.reserve(dict.size());
    for (const auto& entry : dict) {
      absl::StatusOr<c10::IValue> key = CoerceTo(entry.key(), key_type);
      if (!key.ok()) return WithPath(key.status(), KeySegmentOf(entry.key()));
      absl::StatusOr<c10::IValue> item = CoerceTo(entry.value(), value_type);
      if (!item.ok()) return WithPath(item.status(), KeySegmentOf(entry.key()));
      result.insert_or_assign(*std::move(key), *std::move(item));
    }
    return c10::IValue(std::move(result));
  }

  absl::StatusOr<size_t> Length(const c10::IValue& value,
                                const TypeInfo&) const override {
    return value.toGenericDict().size();
  }
};

}  // namespace

std::unique_ptr<KindCodec> MakeDictCodec() { return std::make_unique<DictCodec>(); }

}  // namespace tsb
