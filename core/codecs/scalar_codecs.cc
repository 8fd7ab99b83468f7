// Codecs for None, bool, int, float, complex, Scalar (number) and Any.
// None, bool, int and float travel inline; complex travels as a handle.
#include "core/codecs/builtin_codecs.h"
#include "core/value/convert.h"  // SetInline
#include "tsbridge/plugin/kind_codec.hpp"

namespace tsb {
namespace {

class NoneCodec final : public KindCodec {
 public:
  tsb_kind kind() const override { return TSB_KIND_NONE; }
  c10::TypeKind type_kind() const override { return c10::TypeKind::NoneType; }
  absl::Status Encode(c10::IValue, const TypeInfo& info, tsb_any* out) const override {
    SetInline(info.index, 0, out);
    return absl::OkStatus();
  }
  absl::StatusOr<c10::IValue> Decode(const tsb_any&) const override {
    return c10::IValue();
  }
  absl::StatusOr<c10::IValue> Coerce(const c10::IValue& value,
                                     const TypeInfo& expected) const override {
    if (value.isNone()) return value;
    return Mismatch(expected, value);
  }
};

class BoolCodec final : public KindCodec {
 public:
  tsb_kind kind() const override { return TSB_KIND_BOOL; }
  c10::TypeKind type_kind() const override { return c10::TypeKind::BoolType; }
  absl::Status Encode(c10::IValue value, const TypeInfo& info, tsb_any* out) const override {
    SetInline(info.index, value.toBool() ? 1 : 0, out);
    return absl::OkStatus();
  }
  absl::StatusOr<c10::IValue> Decode(const tsb_any& value) const override {
    return c10::IValue(value.u.i != 0);
  }
  absl::StatusOr<c10::IValue> Coerce(const c10::IValue& value,
                                     const TypeInfo& expected) const override {
    if (value.isBool()) return value;
    return Mismatch(expected, value);
  }
};

class IntCodec final : public KindCodec {
 public:
  tsb_kind kind() const override { return TSB_KIND_INT; }
  c10::TypeKind type_kind() const override { return c10::TypeKind::IntType; }
  absl::Status Encode(c10::IValue value, const TypeInfo& info, tsb_any* out) const override {
    SetInline(info.index, value.toInt(), out);
    return absl::OkStatus();
  }
  absl::StatusOr<c10::IValue> Decode(const tsb_any& value) const override {
    return c10::IValue(value.u.i);
  }
  // bool is not an int here: TorchScript keeps them apart too.
  absl::StatusOr<c10::IValue> Coerce(const c10::IValue& value,
                                     const TypeInfo& expected) const override {
    if (value.isInt()) return value;
    return Mismatch(expected, value);
  }
};

class FloatCodec final : public KindCodec {
 public:
  tsb_kind kind() const override { return TSB_KIND_FLOAT; }
  c10::TypeKind type_kind() const override { return c10::TypeKind::FloatType; }
  absl::Status Encode(c10::IValue value, const TypeInfo& info, tsb_any* out) const override {
    out->type_index = info.index;
    out->flags = 0;
    out->u.d = value.toDouble();
    return absl::OkStatus();
  }
  absl::StatusOr<c10::IValue> Decode(const tsb_any& value) const override {
    return c10::IValue(value.u.d);
  }
  // An int widens to float, as in TorchScript calls.
  absl::StatusOr<c10::IValue> Coerce(const c10::IValue& value,
                                     const TypeInfo& expected) const override {
    if (value.isDouble()) return value;
    if (value.isInt()) return c10::IValue(static_cast<double>(value.toInt()));
    return Mismatch(expected, value);
  }
};

class ComplexCodec final : public KindCodec {
 public:
  tsb_kind kind() const override { return TSB_KIND_COMPLEX; }
  c10::TypeKind type_kind() const override { return c10::TypeKind::ComplexType; }
  // int and float widen to complex.
  absl::StatusOr<c10::IValue> Coerce(const c10::IValue& value,
                                     const TypeInfo& expected) const override {
    if (value.isComplexDouble()) return value;
    if (value.isDouble() || value.isInt()) {
      double re = value.isDouble() ? value.toDouble()
                                   : static_cast<double>(value.toInt());
      return c10::IValue(c10::complex<double>(re, 0.0));
    }
    return Mismatch(expected, value);
  }
};

// TorchScript's `Scalar`: any number crosses as itself.
class NumberCodec final : public KindCodec {
 public:
  tsb_kind kind() const override { return TSB_KIND_NUMBER; }
  c10::TypeKind type_kind() const override { return c10::TypeKind::NumberType; }
  bool is_abstract() const override { return true; }
  absl::StatusOr<c10::IValue> Coerce(const c10::IValue& value,
                                     const TypeInfo& expected) const override {
    if (value.isInt() || value.isDouble() || value.isComplexDouble() ||
        value.isBool()) {
      return value;
    }
    return Mismatch(expected, value);
  }
};

class AnyCodec final : public KindCodec {
 public:
  tsb_kind kind() const override { return TSB_KIND_ANY; }
  c10::TypeKind type_kind() const override { return c10::TypeKind::AnyType; }
  bool is_abstract() const override { return true; }
  absl::StatusOr<c10::IValue> Coerce(const c10::IValue& value,
                                     const TypeInfo&) const override {
    return value;
  }
};

}  // namespace

std::unique_ptr<KindCodec> MakeNoneCodec() { return std::make_unique<NoneCodec>(); }
std::unique_ptr<KindCodec> MakeBoolCodec() { return std::make_unique<BoolCodec>(); }
std::unique_ptr<KindCodec> MakeIntCodec() { return std::make_unique<IntCodec>(); }
std::unique_ptr<KindCodec> MakeFloatCodec() { return std::make_unique<FloatCodec>(); }
std::unique_ptr<KindCodec> MakeComplexCodec() { return std::make_unique<ComplexCodec>(); }
std::unique_ptr<KindCodec> MakeNumberCodec() { return std::make_unique<NumberCodec>(); }
std::unique_ptr<KindCodec> MakeAnyCodec() { return std::make_unique<AnyCodec>(); }

}  // namespace tsb
