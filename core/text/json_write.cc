// IValue -> JSON. The boundary type decides how a value prints: an IValue int
// is a dtype name when the type is ScalarType, and a List's elements print
// by the list's element type, never by their first element. Kinds JSON has
// no form of its own for print through their codec's items (WriteItems).
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <ATen/core/class_type.h>

#include "absl/strings/str_cat.h"
#include "core/compat/torch_compat.h"
#include "core/text/json_codec.h"
#include "core/types/type_parser.h"  // QualifiedName
#include "core/types/type_registry.h"
#include "core/value/convert.h"
#include "core/object/object.h"

namespace tsb::text {
namespace {

absl::StatusOr<Json> WriteAt(const c10::IValue& value, const TypeInfo* type, int depth);

// A nested write; its failure gets `segment` prepended to the path.
absl::StatusOr<Json> Nested(const c10::IValue& value, const TypeInfo* type, int depth,
                            const std::string& segment) {
  absl::StatusOr<Json> out = WriteAt(value, type, depth + 1);
  if (!out.ok()) return WithPath(out.status(), segment);
  return out;
}

absl::StatusOr<const TypeInfo*> Contained(const TypeInfo& type, size_t i) {
  return FindType(type.contained[i]);
}

absl::StatusOr<Json> WriteComplex(c10::complex<double> c) {
  Json out = Json::object();
  out["real"] = FloatToJson(c.real());
  out["imag"] = FloatToJson(c.imag());
  return out;
}

absl::StatusOr<Json> WriteNamedCode(std::optional<std::string> name, const TypeInfo& type,
                                    int64_t code) {
  if (!name) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid ", type.annotation, " code ", code));
  }
  return Json(*name);
}

// {"dtype", "shape", "data"} and, only when they are not the default,
// "device" and "requires_grad". The data is read from a contiguous CPU copy,
// widened to int64 / double / complex<double>, which every dtype fits.
// The elements of a CPU contiguous tensor of a common dtype, read in place:
// each widened as the wide copy below would (a static_cast), without the
// four dispatched operations that copy costs, more than the read itself for
// a small tensor (tsb serve's responses: docs/benchmarks.md). False for
// another dtype.
bool WriteCommonData(const at::Tensor& cpu, Json& data) {
  const int64_t n = cpu.numel();
  auto ints = [&](auto zero) {
    using T = decltype(zero);
    const T* p = cpu.data_ptr<T>();
    for (int64_t i = 0; i < n; ++i) data.push_back(static_cast<int64_t>(p[i]));
    return true;
  };
  auto floats = [&](auto zero) {
    using T = decltype(zero);
    const T* p = cpu.data_ptr<T>();
    for (int64_t i = 0; i < n; ++i) data.push_back(FloatToJson(static_cast<double>(p[i])));
    return true;
  };
  switch (cpu.scalar_type()) {
    case at::kFloat: return floats(float{});
    case at::kDouble: return floats(double{});
    case at::kLong: return ints(int64_t{});
    case at::kInt: return ints(int32_t{});
    case at::kShort: return ints(int16_t{});
    case at::kChar: return ints(int8_t{});
    case at::kByte: return ints(uint8_t{});
    default: return false;
  }
}

absl::StatusOr<Json> WriteTensor(const at::Tensor& tensor) {
  if (!tensor.defined()) return Json(nullptr);  // what PyTorch shows as None
  if (tensor.layout() != at::kStrided) {
    return absl::UnimplementedError(absl::StrCat(
        "a tensor of layout ", LayoutName(static_cast<int64_t>(tensor.layout()))
                                   .value_or("?"),
        " has no JSON form; convert it to a strided tensor first"));
  }
  if (tensor.is_quantized()) {
    return absl::UnimplementedError(absl::StrCat(
        "a quantized tensor (", DtypeName(static_cast<int64_t>(tensor.scalar_type()))
                                    .value_or("?"),
        ") has no JSON form; dequantize it first"));
  }
  Json out = Json::object();
  out["dtype"] = DtypeName(static_cast<int64_t>(tensor.scalar_type())).value_or("?");
  out["shape"] = std::vector<int64_t>(tensor.sizes().begin(), tensor.sizes().end());
  const bool in_place = tensor.is_cpu() && tensor.is_contiguous();
  const at::Tensor cpu = in_place ? tensor : tensor.detach().to(at::kCPU).contiguous();
  Json data = Json::array();
  const int64_t n = cpu.numel();
  at::ScalarType st = cpu.scalar_type();
  // A negated view's memory holds the values before negation: the copies
  // below resolve it.
  if (!cpu.is_neg() && WriteCommonData(cpu, data)) {
    // read in place
  } else if (st == at::kBool) {
    const bool* p = cpu.data_ptr<bool>();
    for (int64_t i = 0; i < n; ++i) data.push_back(p[i]);
  } else if (at::isIntegralType(st, /*includeBool=*/false)) {
    at::Tensor wide = cpu.to(at::kLong);
    const int64_t* p = wide.data_ptr<int64_t>();
    for (int64_t i = 0; i < n; ++i) data.push_back(p[i]);
  } else if (at::isComplexType(st)) {
    at::Tensor wide = cpu.to(at::kComplexDouble);
    const auto* p = wide.data_ptr<c10::complex<double>>();
    for (int64_t i = 0; i < n; ++i) data.push_back(*WriteComplex(p[i]));
  } else {
    at::Tensor wide = cpu.to(at::kDouble);
    const double* p = wide.data_ptr<double>();
    for (int64_t i = 0; i < n; ++i) data.push_back(FloatToJson(p[i]));
  }
  out["data"] = std::move(data);
  if (!tensor.device().is_cpu()) out["device"] = tensor.device().str();
  if (tensor.requires_grad()) out["requires_grad"] = true;
  return out;
}

absl::StatusOr<Json> WriteList(const c10::IValue& value, const TypeInfo& type, int depth) {
  TSB_ASSIGN_OR_RETURN(const TypeInfo* element, Contained(type, 0));
  Json out = Json::array();
  c10::ArrayRef<c10::IValue> items = value.toListRef();
  for (size_t i = 0; i < items.size(); ++i) {
    TSB_ASSIGN_OR_RETURN(Json item, Nested(items[i], element, depth, IndexSegment(i)));
    out.push_back(std::move(item));
  }
  return out;
}

// str keys -> an object; any other key type -> [[key, value], ...], since a
// JSON object cannot carry an int or a Tensor key. A Dict whose key type is
// Any (LibTorch's unpickler makes those) is an object when every key is a str.
absl::StatusOr<Json> WriteDict(const c10::IValue& value, const TypeInfo& type, int depth) {
  TSB_ASSIGN_OR_RETURN(const TypeInfo* key_type, Contained(type, 0));
  TSB_ASSIGN_OR_RETURN(const TypeInfo* value_type, Contained(type, 1));
  c10::impl::GenericDict dict = value.toGenericDict();
  bool as_object = key_type->kind == TSB_KIND_STR;
  if (key_type->codec->is_abstract()) {
    as_object = true;
    for (const auto& entry : dict) as_object = as_object && entry.key().isString();
  }
  Json out = as_object ? Json::object() : Json::array();
  size_t i = 0;
  for (const auto& entry : dict) {
    const std::string segment = KeySegmentOf(entry.key());
    TSB_ASSIGN_OR_RETURN(Json item, Nested(entry.value(), value_type, depth, segment));
    if (as_object) {
      out[entry.key().toStringRef()] = std::move(item);
    } else {
      TSB_ASSIGN_OR_RETURN(Json key,
                           Nested(entry.key(), key_type, depth, IndexSegment(i)));
      out.push_back(Json::array({std::move(key), std::move(item)}));
    }
    ++i;
  }
  return out;
}

// A kind JSON has no form of its own for, whose codec is a container (a
// Tuple, a plugin's sequence): an array of its items, or an object when its
// type names its fields (a NamedTuple). Each item prints by the type its
// codec gives it at the boundary, as a host reading it would see it.
absl::StatusOr<Json> WriteItems(const c10::IValue& value, const TypeInfo& type, int depth) {
  absl::StatusOr<size_t> n = type.codec->Length(value, type);
  if (!n.ok()) {
    return absl::UnimplementedError(absl::StrCat(type.annotation, " has no JSON form"));
  }
  const bool named =
      type.field_names.size() == *n && (*n > 0 || !type.name.empty());  // {} for a record
  Json out = named ? Json::object() : Json::array();
  for (size_t i = 0; i < *n; ++i) {
    tsb_any boundary{};
    TSB_RETURN_IF_ERROR(type.codec->Item(value, type, i, &boundary));
    absl::StatusOr<TypedValue> item = Decode(boundary);
    Release(boundary);
    TSB_RETURN_IF_ERROR(item.status());
    std::string segment = named ? FieldSegment(type.field_names[i])
                                : IndexSegment(i);
    TSB_ASSIGN_OR_RETURN(Json json, Nested(item->value, item->type, depth, segment));
    if (named) {
      out[type.field_names[i]] = std::move(json);
    } else {
      out.push_back(std::move(json));
    }
  }
  return out;
}

// Read straight from c10::EnumHolder, so an Enum prints whether or not a
// codec for its kind is registered.
Json WriteEnum(const c10::IValue& value) {
  const auto& holder = value.toEnumHolder();
  Json out = Json::object();
  out["enum"] = holder->qualifiedClassName();
  out["member"] = holder->name();
  return out;
}

// {"class": name, "fields": {...}}: output only (docs/json.md). Each field
// prints by its declared type when the registry knows it, else as itself.
absl::StatusOr<Json> WriteObject(const c10::IValue& value, int depth) {
  const auto& object = value.toObjectRef();
  c10::ClassTypePtr cls = object.type();
  const std::string name = QualifiedName(*cls);
  Json fields = Json::object();
  for (size_t i = 0; i < cls->numAttributes() && i < object.slots().size(); ++i) {
    const std::string& field = cls->getAttributeName(i);
    const c10::IValue& slot = object.getSlot(i);
    if (slot.isCapsule()) {
      return absl::UnimplementedError(absl::StrCat(
          "torchbind class instance ", name, " has no JSON form"));
    }
    absl::StatusOr<const TypeInfo*> declared =
        TypeRegistry::Global().Intern(cls->getAttribute(i));
    const TypeInfo* type = declared.ok() ? *declared : nullptr;
    TSB_ASSIGN_OR_RETURN(Json item, Nested(slot, type, depth,
                                           FieldSegment(field)));
    fields[field] = std::move(item);
  }
  Json out = Json::object();
  out["class"] = name;
  out["fields"] = std::move(fields);
  return out;
}

absl::StatusOr<Json> WriteAt(const c10::IValue& value, const TypeInfo* type, int depth) {
  if (depth > kMaxDepth) {
    return absl::InvalidArgumentError(
        absl::StrCat("value nested deeper than ", kMaxDepth, " levels"));
  }
  if (value.isEnum()) return WriteEnum(value);
  if (value.isObject()) return WriteObject(value, depth);
  // Abstract types (Optional, Union, Any, Scalar) print the value as itself;
  // so does a field whose declared type has no codec (type == nullptr).
  if (type == nullptr || type->codec->is_abstract()) {
    TSB_ASSIGN_OR_RETURN(type, TypeOfValue(value));
  }
  switch (type->kind) {
    case TSB_KIND_NONE: return Json(nullptr);
    case TSB_KIND_BOOL: return Json(value.toBool());
    case TSB_KIND_INT:
    case TSB_KIND_UINT:  // a UInt as an unsigned number, never wrapped
      if (compat::IsUInt(value)) return Json(compat::ToUInt(value));
      return Json(value.toInt());
    case TSB_KIND_FLOAT: return FloatToJson(value.toDouble());
    case TSB_KIND_COMPLEX: return WriteComplex(value.toComplexDouble());
    case TSB_KIND_STR: return Json(value.toStringRef());
    case TSB_KIND_TENSOR: return WriteTensor(value.toTensor());
    case TSB_KIND_DEVICE: return Json(value.toDevice().str());
    case TSB_KIND_DTYPE:
    case TSB_KIND_LAYOUT:
    case TSB_KIND_MEMORY_FORMAT:
      return WriteNamedCode(CodeNamesOf(type->kind)->name(value.toInt()), *type,
                            value.toInt());
    case TSB_KIND_LIST: return WriteList(value, *type, depth);
    case TSB_KIND_DICT: return WriteDict(value, *type, depth);
    default: return WriteItems(value, *type, depth);
  }
}

}  // namespace

absl::StatusOr<Json> Write(const c10::IValue& value, const TypeInfo& type) {
  return WriteAt(value, &type, 0);
}

}  // namespace tsb::text
