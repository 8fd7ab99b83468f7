// The JSON reader's leaves: complex numbers, tensors, enums, and Any (the
// only place JSON is read for what it looks like).
#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include <ATen/ATen.h>
#include <ATen/core/enum_type.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/text/json_read.h"
#include "core/value/convert.h"  // UIntValue

namespace tsb::text {
namespace {

std::string Key(absl::string_view name) {
  return StrKeySegment(std::string_view(name.data(), name.size()));
}

absl::Status Expected(absl::string_view what, const Json& found,
                      absl::string_view why = "") {
  return TypeError(absl::StrCat("expected ", what, ", got ", DescribeJson(found), why));
}

// An object must have exactly the `required` keys and may have `optional`
// ones: a typo ("dtyp") is an error, not a silently ignored key.
absl::Status CheckKeys(const Json& json, absl::string_view what,
                       std::initializer_list<const char*> required,
                       std::initializer_list<const char*> optional) {
  for (const char* key : required) {
    if (!json.contains(key)) {
      return TypeError(absl::StrCat(what, " object without key \"", key, "\""));
    }
  }
  for (const auto& item : json.items()) {
    // Not a structured binding: clang 14 cannot capture one in a lambda.
    const std::string& key = item.key();
    auto is = [&](const char* k) { return key == k; };
    if (std::none_of(required.begin(), required.end(), is) &&
        std::none_of(optional.begin(), optional.end(), is)) {
      std::vector<const char*> all(required);
      all.insert(all.end(), optional.begin(), optional.end());
      return TypeError(absl::StrCat("unknown key \"", key, "\" in ", what,
                                    " object (keys: ", absl::StrJoin(all, ", "), ")"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<double> Part(const Json& json, const char* key) {
  std::optional<double> d = FloatFromJson(json.at(key));
  if (!d) return WithPath(Expected("float", json.at(key)), Key(key));
  return *d;
}

absl::StatusOr<c10::complex<double>> ComplexOf(const Json& json, absl::string_view what) {
  if (std::optional<double> re = FloatFromJson(json)) return c10::complex<double>(*re, 0);
  if (!json.is_object()) return Expected(what, json);
  TSB_RETURN_IF_ERROR(CheckKeys(json, "complex", {"real", "imag"}, {}));
  TSB_ASSIGN_OR_RETURN(double re, Part(json, "real"));
  TSB_ASSIGN_OR_RETURN(double im, Part(json, "imag"));
  return c10::complex<double>(re, im);
}

// Integer range of an integral dtype, so 300 is refused for uint8 instead
// of wrapping.
std::pair<int64_t, int64_t> RangeOf(at::ScalarType st) {
  switch (st) {
    case at::kByte: return {0, 255};
    case at::kChar: return {INT8_MIN, INT8_MAX};
    case at::kShort: return {INT16_MIN, INT16_MAX};
    case at::kInt: return {INT32_MIN, INT32_MAX};
    default: return {INT64_MIN, INT64_MAX};
  }
}

// The flat data, read into the widest type of its class, then converted.
absl::StatusOr<at::Tensor> TensorData(const Json& data, at::ScalarType st,
                                      const std::vector<int64_t>& shape,
                                      const std::string& dtype) {
  const size_t n = data.size();
  auto at_index = [](absl::Status s, size_t i) {
    return WithPath(WithPath(std::move(s), IndexSegment(i)), Key("data"));
  };
  // The values into a new tensor of st: written element by element for the
  // common dtypes (a static_cast, which is what LibTorch's copy kernel does
  // too, the range already checked), else through LibTorch's conversion,
  // whose dispatch costs more than the copy for a small tensor (tsb serve's
  // requests: docs/benchmarks.md).
  auto wide = [&](auto& values, at::ScalarType wide_type) -> at::Tensor {
    using V = typename std::remove_reference_t<decltype(values)>::value_type;
    if constexpr (!std::is_same_v<V, c10::complex<double>>) {
      auto filled = [&](auto zero) {
        using T = decltype(zero);
        at::Tensor tensor = at::empty(shape, at::TensorOptions().dtype(st));
        T* out = tensor.data_ptr<T>();
        for (size_t i = 0; i < n; ++i) out[i] = static_cast<T>(values[i]);
        return tensor;
      };
      switch (st) {
        case at::kFloat: return filled(float{});
        case at::kDouble: return filled(double{});
        case at::kLong: return filled(int64_t{});
        case at::kInt: return filled(int32_t{});
        case at::kShort: return filled(int16_t{});
        case at::kChar: return filled(int8_t{});
        case at::kByte: return filled(uint8_t{});
        case at::kBool: return filled(bool{});  // values are 0 or 1
        default: break;
      }
    }
    return at::from_blob(values.data(), shape, at::TensorOptions().dtype(wide_type))
        .to(st, /*non_blocking=*/false, /*copy=*/true);
  };
  if (st == at::kBool) {
    std::vector<uint8_t> values(n);  // bool is one byte holding 0 or 1
    for (size_t i = 0; i < n; ++i) {
      if (!data[i].is_boolean()) return at_index(Expected(dtype, data[i]), i);
      values[i] = data[i].get<bool>() ? 1 : 0;
    }
    return wide(values, at::kBool);
  }
  if (at::isIntegralType(st, /*includeBool=*/false)) {
    auto [lo, hi] = RangeOf(st);
    std::vector<int64_t> values(n);
    for (size_t i = 0; i < n; ++i) {
      const Json& x = data[i];
      if (!x.is_number_integer()) return at_index(Expected(dtype, x), i);
      bool in_range = x.is_number_unsigned()
                          ? x.get<uint64_t>() <= static_cast<uint64_t>(hi)
                          : x.get<int64_t>() >= lo && x.get<int64_t>() <= hi;
      if (!in_range) {
        return at_index(Expected(dtype, x, absl::StrCat(", which is out of range for ",
                                                        dtype)), i);
      }
      values[i] = x.get<int64_t>();
    }
    return wide(values, at::kLong);
  }
  if (at::isComplexType(st)) {
    std::vector<c10::complex<double>> values(n);
    for (size_t i = 0; i < n; ++i) {
      absl::StatusOr<c10::complex<double>> c = ComplexOf(data[i], dtype);
      if (!c.ok()) return at_index(c.status(), i);
      values[i] = *c;
    }
    return wide(values, at::kComplexDouble);
  }
  std::vector<double> values(n);
  for (size_t i = 0; i < n; ++i) {
    std::optional<double> d = FloatFromJson(data[i]);
    if (!d) return at_index(Expected(dtype, data[i]), i);
    values[i] = *d;
  }
  return wide(values, at::kDouble);
}

}  // namespace

absl::StatusOr<c10::IValue> ReadComplex(const Json& json, const TypeInfo& expected) {
  TSB_ASSIGN_OR_RETURN(c10::complex<double> c, ComplexOf(json, expected.annotation));
  return c10::IValue(c);
}

absl::StatusOr<c10::IValue> ReadTensor(const Json& json, const TypeInfo& expected) {
  if (!json.is_object()) return Expected(expected.annotation, json);
  TSB_RETURN_IF_ERROR(
      CheckKeys(json, "Tensor", {"dtype", "shape", "data"}, {"device", "requires_grad"}));

  const Json& dtype_json = json["dtype"];
  std::optional<int64_t> code;
  if (dtype_json.is_string()) code = DtypeCode(dtype_json.get_ref<const std::string&>());
  if (!code) {
    return WithPath(Expected("a dtype name such as \"float32\"", dtype_json), Key("dtype"));
  }
  const auto st = static_cast<at::ScalarType>(*code);
  const std::string dtype = *DtypeName(*code);
  if (at::isQIntType(st) || st == at::kComplexHalf || st == at::ScalarType::Undefined) {
    return WithPath(absl::UnimplementedError(absl::StrCat(
                        "a ", dtype, " tensor cannot be built from JSON")),
                    Key("dtype"));
  }

  const Json& shape_json = json["shape"];
  if (!shape_json.is_array()) {
    return WithPath(Expected("a JSON array of sizes", shape_json), Key("shape"));
  }
  const Json& data = json["data"];
  if (!data.is_array()) {
    return WithPath(Expected("a JSON array of elements", data), Key("data"));
  }
  // The product is computed with an overflow check, so a huge shape can
  // neither wrap around nor allocate: it simply does not match the data.
  std::vector<int64_t> shape;
  bool has_zero = false, overflow = false;
  uint64_t numel = 1;
  for (size_t i = 0; i < shape_json.size(); ++i) {
    const Json& size = shape_json[i];
    if (!size.is_number_unsigned() ||
        size.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
      return WithPath(WithPath(Expected("a size (an int >= 0)", size), IndexSegment(i)),
                      Key("shape"));
    }
    shape.push_back(size.get<int64_t>());
    has_zero = has_zero || size.get<uint64_t>() == 0;
    overflow = overflow || __builtin_mul_overflow(numel, size.get<uint64_t>(), &numel);
  }
  if (has_zero) numel = 0;
  if ((overflow && !has_zero) || numel != data.size()) {
    return WithPath(
        TypeError(absl::StrCat("shape [", absl::StrJoin(shape, ", "), "] needs ",
                               overflow && !has_zero ? std::string("more than 2^64")
                                                     : absl::StrCat(numel),
                               " elements, got ", DescribeJson(data))),
        Key("data"));
  }
  TSB_ASSIGN_OR_RETURN(at::Tensor tensor, TensorData(data, st, shape, dtype));

  if (auto it = json.find("device"); it != json.end()) {
    TSB_ASSIGN_OR_RETURN(const TypeInfo* device_type, FindType(TSB_TYPE_DEVICE));
    TSB_ASSIGN_OR_RETURN(c10::IValue device, ReadNested(*it, *device_type, 0, Key("device"), /*doc=*/nullptr));
    tensor = tensor.to(device.toDevice());
  }
  if (auto it = json.find("requires_grad"); it != json.end()) {
    if (!it->is_boolean()) {
      return WithPath(Expected("true or false", *it), Key("requires_grad"));
    }
    if (it->get<bool>()) {
      if (!at::isFloatingType(st) && !at::isComplexType(st)) {
        return WithPath(TypeError(absl::StrCat("a ", dtype, " tensor cannot require "
                                               "gradients (only floating point and "
                                               "complex ones can)")),
                        Key("requires_grad"));
      }
      tensor.set_requires_grad(true);
    }
  }
  return c10::IValue(std::move(tensor));
}

absl::StatusOr<c10::IValue> ReadEnum(const Json& json, const TypeInfo& expected) {
  auto enum_type = expected.type->cast<c10::EnumType>();
  const std::string qualified = enum_type->qualifiedClassName().qualifiedName();
  const Json* member = &json;
  if (json.is_object()) {
    TSB_RETURN_IF_ERROR(CheckKeys(json, "Enum", {"enum", "member"}, {}));
    const Json& name = json["enum"];
    if (!name.is_string() || name.get_ref<const std::string&>() != qualified) {
      return WithPath(Expected(absl::StrCat("\"", qualified, "\""), name), Key("enum"));
    }
    member = &json["member"];
  }
  std::vector<std::string> names;
  for (const auto& [name, value] : enum_type->enumNamesValues()) {
    if (member->is_string() && name == member->get_ref<const std::string&>()) {
      return c10::IValue(
          c10::make_intrusive<c10::ivalue::EnumHolder>(enum_type, name, value));
    }
    names.push_back(name);
  }
  absl::Status error = Expected(
      expected.annotation, *member,
      absl::StrCat(", which is not a member (", absl::StrJoin(names, ", "), ")"));
  return member == &json ? error : WithPath(error, Key("member"));
}

absl::StatusOr<c10::IValue> Infer(const Json& json, int depth) {
  if (depth > kMaxDepth) {
    return absl::InvalidArgumentError(
        absl::StrCat("JSON nested deeper than ", kMaxDepth, " levels"));
  }
  switch (json.type()) {
    case Json::value_t::null: return c10::IValue();
    case Json::value_t::boolean: return c10::IValue(json.get<bool>());
    case Json::value_t::number_unsigned:  // above INT64_MAX: a UInt
      return UIntValue(json.get<uint64_t>(), "Any", DescribeJson(json));
    case Json::value_t::number_integer: return c10::IValue(json.get<int64_t>());
    case Json::value_t::number_float: return c10::IValue(json.get<double>());
    case Json::value_t::string: return c10::IValue(json.get<std::string>());
    case Json::value_t::array: {
      c10::impl::GenericList list(c10::AnyType::get());
      list.reserve(json.size());
      for (size_t i = 0; i < json.size(); ++i) {
        absl::StatusOr<c10::IValue> item = Infer(json[i], depth + 1);
        if (!item.ok()) return WithPath(item.status(), IndexSegment(i));
        list.push_back(*std::move(item));
      }
      return c10::IValue(std::move(list));
    }
    case Json::value_t::object: {
      c10::impl::GenericDict dict(c10::StringType::get(), c10::AnyType::get());
      dict.reserve(json.size());
      for (const auto& [key, value] : json.items()) {
        absl::StatusOr<c10::IValue> item = Infer(value, depth + 1);
        if (!item.ok()) return WithPath(item.status(), Key(key));
        dict.insert_or_assign(c10::IValue(key), *std::move(item));
      }
      return c10::IValue(std::move(dict));
    }
    default:
      return Expected("Any", json);
  }
}

}  // namespace tsb::text
