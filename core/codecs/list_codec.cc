// KindCodec for List[T]. The element type comes from the list's own type,
// never from its first element.
#include "absl/strings/str_cat.h"
#include "core/codecs/builtin_codecs.h"
#include "tsbridge/plugin/kind_codec.hpp"
#include "core/types/type_registry.h"

namespace tsb {
namespace {

class ListCodec final : public KindCodec {
 public:
  tsb_kind kind() const override { return TSB_KIND_LIST; }
  c10::TypeKind type_kind() const override { return c10::TypeKind::ListType; }

  absl::StatusOr<c10::IValue> Coerce(const c10::IValue& value,
                                     const TypeInfo& expected) const override {
    if (!value.isList()) return Mismatch(expected, value);
    const TypeInfo& element = Element(expected);
    c10::impl::GenericList list = value.toList();
    // Already typed as expected: share, do not copy.
    if (*list.elementType() == *element.type) return value;
    c10::impl::GenericList result(element.type);
    result.reserve(list.size());
    for (size_t i = 0; i < list.size(); ++i) {
      absl::StatusOr<c10::IValue> item = CoerceTo(list.get(i), element);
      if (!item.ok()) return WithPath(item.status(), IndexSegment(i));
      result.push_back(*std::move(item));
    }
    return c10::IValue(std::move(result));
  }

  absl::StatusOr<size_t> Length(const c10::IValue& value,
                                const TypeInfo&) const override {
    return value.toListRef().size();
  }

  absl::Status Item(const c10::IValue& value, const TypeInfo& info, size_t i,
                    tsb_any* out) const override {
    c10::ArrayRef<c10::IValue> items = value.toListRef();
    if (i >= items.size()) {
      return absl::OutOfRangeError(absl::StrCat(
          "index ", i, " out of range for ", info.annotation, " of length ",
          items.size()));
    }
    return ToBoundary(items[i], Element(info), out);
  }

 private:
  static const TypeInfo& Element(const TypeInfo& list) {
    return ContainedType(list, 0);
  }
};

}  // namespace

std::unique_ptr<KindCodec> MakeListCodec() { return std::make_unique<ListCodec>(); }

}  // namespace tsb
