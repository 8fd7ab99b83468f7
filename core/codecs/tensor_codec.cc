// KindCodec for Tensor: a handle that shares the tensor (no copy). DLPack
// crossings live in abi/tensor_abi.cc.
#include "core/codecs/builtin_codecs.h"
#include "tsbridge/plugin/kind_codec.hpp"

namespace tsb {
namespace {

class TensorCodec final : public KindCodec {
 public:
  tsb_kind kind() const override { return TSB_KIND_TENSOR; }
  c10::TypeKind type_kind() const override { return c10::TypeKind::TensorType; }
  // Refined tensor types (shapes recorded by the tracer) are all "Tensor".
  c10::TypePtr Canonical(const c10::TypePtr&) const override {
    return c10::TensorType::get();
  }
  // A handle, or a borrowed tensor (ABI 1.9): the tensor it names.
  absl::StatusOr<c10::IValue> Decode(const tsb_any& value) const override {
    if (value.flags != TSB_FLAG_BORROWED) return KindCodec::Decode(value);
    if (value.u.borrowed == nullptr) {
      return absl::InvalidArgumentError("malformed value: a borrowed tensor names nothing");
    }
    return c10::IValue(BorrowedTensor(value));
  }
  absl::StatusOr<c10::IValue> Coerce(const c10::IValue& value,
                                     const TypeInfo& expected) const override {
    if (value.isTensor()) return value;
    return Mismatch(expected, value);
  }
};

}  // namespace

std::unique_ptr<KindCodec> MakeTensorCodec() { return std::make_unique<TensorCodec>(); }

}  // namespace tsb
