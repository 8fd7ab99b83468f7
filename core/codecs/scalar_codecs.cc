// Codecs for None, bool, int, uint, float, complex, Scalar (number) and
// Any. None, bool, int, uint and float travel inline; complex as a handle.
#include "core/codecs/builtin_codecs.h"
#include "absl/strings/str_cat.h"
#include "core/compat/torch_compat.h"
#include "core/value/convert.h"  // SetInline, EncodeInt, UIntValue
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

// int and uint (an int above INT64_MAX, LibTorch 2.9's UInt) are one set of
// values, TorchScript's `int`: a UInt comes out as TSB_TYPE_UINT (u.u),
// never wrapped. Each boundary form decodes itself.
class IntValuesCodec : public KindCodec {
 public:
  c10::TypeKind type_kind() const override { return c10::TypeKind::IntType; }
  absl::Status Encode(c10::IValue value, const TypeInfo&, tsb_any* out) const override {
    EncodeInt(value, out);
    return absl::OkStatus();
  }
  // bool is not an int here: TorchScript keeps them apart too.
  absl::StatusOr<c10::IValue> Coerce(const c10::IValue& value,
                                     const TypeInfo& expected) const override {
    if (value.isInt() || compat::IsUInt(value)) return value;
    return Mismatch(expected, value);
  }
};

class IntCodec final : public IntValuesCodec {
 public:
  tsb_kind kind() const override { return TSB_KIND_INT; }
  absl::StatusOr<c10::IValue> Decode(const tsb_any& value) const override {
    return c10::IValue(value.u.i);
  }
};

// TSB_TYPE_UINT: a value form of `int`, not a TorchScript type of its own.
// IntType's codec is IntCodec; this one is published at its fixed index
// only (builtin_codecs.cc) and decodes to a UInt, or says which LibTorch
// has one.
class UIntCodec final : public IntValuesCodec {
 public:
  tsb_kind kind() const override { return TSB_KIND_UINT; }
  absl::StatusOr<c10::IValue> Decode(const tsb_any& value) const override {
    return UIntValue(value.u.u, "int", absl::StrCat("int ", value.u.u));
  }
};

// An int or a UInt as a double (rounded to the nearest above 2^53).
double IntAsDouble(const c10::IValue& value) {
  return compat::IsUInt(value) ? static_cast<double>(compat::ToUInt(value))
                               : static_cast<double>(value.toInt());
}

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
    if (value.isInt() || compat::IsUInt(value)) return c10::IValue(IntAsDouble(value));
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
    if (value.isDouble() || value.isInt() || compat::IsUInt(value)) {
      double re = value.isDouble() ? value.toDouble() : IntAsDouble(value);
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
    if (value.isInt() || compat::IsUInt(value) || value.isDouble() ||
        value.isComplexDouble() || value.isBool()) {
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
std::unique_ptr<KindCodec> MakeUIntCodec() { return std::make_unique<UIntCodec>(); }
std::unique_ptr<KindCodec> MakeFloatCodec() { return std::make_unique<FloatCodec>(); }
std::unique_ptr<KindCodec> MakeComplexCodec() { return std::make_unique<ComplexCodec>(); }
std::unique_ptr<KindCodec> MakeNumberCodec() { return std::make_unique<NumberCodec>(); }
std::unique_ptr<KindCodec> MakeAnyCodec() { return std::make_unique<AnyCodec>(); }

}  // namespace tsb
