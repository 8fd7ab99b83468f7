// Codecs for Device, dtype (ScalarType), Layout and MemoryFormat. All travel
// inline. In an IValue, dtype, layout and memory format are plain ints (as
// in TorchScript); the expected type says which one a value is.
#include <string>

#include "absl/strings/str_cat.h"
#include "core/codecs/builtin_codecs.h"
#include "core/value/convert.h"  // SetInline
#include "tsbridge/plugin/kind_codec.hpp"

namespace tsb {
namespace {

// Device packs (device_type << 32 | uint32(index)), as tsb_any_device() does.
class DeviceCodec final : public KindCodec {
 public:
  tsb_kind kind() const override { return TSB_KIND_DEVICE; }
  c10::TypeKind type_kind() const override { return c10::TypeKind::DeviceObjType; }
  absl::Status Encode(c10::IValue value, const TypeInfo& info, tsb_any* out) const override {
    c10::Device device = value.toDevice();
    uint64_t packed = (static_cast<uint64_t>(static_cast<uint32_t>(device.type())) << 32) |
                      static_cast<uint32_t>(static_cast<int32_t>(device.index()));
    SetInline(info.index, static_cast<int64_t>(packed), out);
    return absl::OkStatus();
  }
  absl::StatusOr<c10::IValue> Decode(const tsb_any& value) const override {
    auto packed = static_cast<uint64_t>(value.u.i);
    auto type = static_cast<int32_t>(packed >> 32);
    auto index = static_cast<int32_t>(static_cast<uint32_t>(packed));
    if (type < 0 || type >= static_cast<int32_t>(c10::DeviceType::COMPILE_TIME_MAX_DEVICE_TYPES) ||
        index < -1 || index > INT8_MAX) {
      return absl::InvalidArgumentError(absl::StrCat(
          "invalid Device: device type ", type, ", index ", index));
    }
    // LibTorch checks this only in debug builds.
    if (type == static_cast<int32_t>(c10::DeviceType::CPU) && index > 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "invalid Device: CPU device index must be -1 or zero, got ", index));
    }
    try {
      return c10::IValue(c10::Device(static_cast<c10::DeviceType>(type),
                                     static_cast<c10::DeviceIndex>(index)));
    } catch (const c10::Error& e) {
      return absl::InvalidArgumentError(
          absl::StrCat("invalid Device: ", e.what_without_backtrace()));
    }
  }
  // A str such as "cpu" or "cuda:1" converts, as in TorchScript calls.
  absl::StatusOr<c10::IValue> Coerce(const c10::IValue& value,
                                     const TypeInfo& expected) const override {
    if (value.isDevice()) return value;
    if (value.isString()) {
      try {
        return c10::IValue(c10::Device(value.toStringRef()));
      } catch (const c10::Error&) {
        return TypeError(absl::StrCat("expected Device, got ", DescribeValue(value),
                                      ", which does not name a device"));
      }
    }
    return Mismatch(expected, value);
  }
};

// An enumeration LibTorch stores as int: valid codes are [0, count).
class IntEnumCodec final : public KindCodec {
 public:
  IntEnumCodec(tsb_kind kind, c10::TypeKind type_kind, int64_t count)
      : kind_(kind), type_kind_(type_kind), count_(count) {}
  tsb_kind kind() const override { return kind_; }
  c10::TypeKind type_kind() const override { return type_kind_; }
  absl::Status Encode(c10::IValue value, const TypeInfo& info, tsb_any* out) const override {
    SetInline(info.index, value.toInt(), out);
    return absl::OkStatus();
  }
  absl::StatusOr<c10::IValue> Decode(const tsb_any& value) const override {
    if (value.u.i < 0 || value.u.i >= count_) {
      return absl::InvalidArgumentError(
          absl::StrCat("invalid ", c10::typeKindToString(type_kind_), " code ",
                       value.u.i, " (valid: 0 to ", count_ - 1, ")"));
    }
    return c10::IValue(value.u.i);
  }
  absl::StatusOr<c10::IValue> Coerce(const c10::IValue& value,
                                     const TypeInfo& expected) const override {
    if (value.isInt() && value.toInt() >= 0 && value.toInt() < count_) return value;
    return Mismatch(expected, value);
  }

 private:
  tsb_kind kind_;
  c10::TypeKind type_kind_;
  int64_t count_;
};

}  // namespace

std::unique_ptr<KindCodec> MakeDeviceCodec() { return std::make_unique<DeviceCodec>(); }
std::unique_ptr<KindCodec> MakeDtypeCodec() {
  return std::make_unique<IntEnumCodec>(
      TSB_KIND_DTYPE, c10::TypeKind::ScalarTypeType,
      static_cast<int64_t>(c10::ScalarType::NumOptions));
}
std::unique_ptr<KindCodec> MakeLayoutCodec() {
  return std::make_unique<IntEnumCodec>(
      TSB_KIND_LAYOUT, c10::TypeKind::LayoutType,
      static_cast<int64_t>(c10::Layout::NumOptions));
}
std::unique_ptr<KindCodec> MakeMemoryFormatCodec() {
  return std::make_unique<IntEnumCodec>(
      TSB_KIND_MEMORY_FORMAT, c10::TypeKind::MemoryFormatType,
      static_cast<int64_t>(c10::MemoryFormat::NumOptions));
}

}  // namespace tsb
