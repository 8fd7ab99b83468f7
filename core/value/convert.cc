#include "core/value/convert.h"

#include <algorithm>
#include <sstream>

#include <ATen/core/class_type.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/compat/torch_compat.h"
#include "core/types/type_registry.h"
#include "core/object/object.h"
#include "core/value/untyped.h"

namespace tsb {

int32_t LeafTypeIndex(const c10::IValue& value) {
  return value.isNone()            ? TSB_TYPE_NONE
         : value.isBool()          ? TSB_TYPE_BOOL
         : value.isInt()           ? TSB_TYPE_INT
         : compat::IsUInt(value)   ? TSB_TYPE_UINT
         : value.isDouble()        ? TSB_TYPE_FLOAT
         : value.isComplexDouble() ? TSB_TYPE_COMPLEX
         : value.isString()        ? TSB_TYPE_STR
         : value.isTensor()        ? TSB_TYPE_TENSOR
         : value.isDevice()        ? TSB_TYPE_DEVICE
                                   : TSB_TYPE_INVALID;
}

absl::StatusOr<const TypeInfo*> TypeOfValue(const c10::IValue& value) {
  // Leaf values map straight to their fixed indices: no type object is built.
  int32_t leaf = LeafTypeIndex(value);
  if (leaf != TSB_TYPE_INVALID) return FindType(leaf);
  if (const UntypedValue* untyped = AsUntyped(value)) {
    return TypeError(absl::StrCat(untyped->Describe(), " has no type until it is read as one"));
  }
  return TypeRegistry::Global().Intern(value.type());
}

absl::StatusOr<c10::IValue> ToIValue(const tsb_any& value) {
  TSB_ASSIGN_OR_RETURN(TypedValue decoded, Decode(value));
  return std::move(decoded.value);
}

namespace {

// The type a well-formed value carries: flags that fit its type, and a
// handle whose own type index is the value's.
// No StatusOr on the way: every call decodes each argument through here.
absl::Status CheckedType(const tsb_any& value, const TypeInfo** out) {
  const TypeInfo* info = TypeRegistry::Global().Find(value.type_index);
  if (info == nullptr) return FindType(value.type_index).status();
  // A borrowed tensor (1.9) carries that flag alone, on a tensor.
  if ((value.flags & ~(TSB_FLAG_HANDLE | TSB_FLAG_BORROWED_STR | TSB_FLAG_BORROWED)) != 0 ||
      ((value.flags & TSB_FLAG_BORROWED_STR) != 0 &&
       (value.type_index != TSB_TYPE_STR || (value.flags & TSB_FLAG_HANDLE) != 0)) ||
      ((value.flags & TSB_FLAG_BORROWED) != 0 &&
       (value.type_index != TSB_TYPE_TENSOR || value.flags != TSB_FLAG_BORROWED))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "malformed value: flags ", value.flags, " do not fit type ", info->annotation));
  }
  if (IsHandle(value) && value.u.obj->type_index != value.type_index) {
    return absl::InvalidArgumentError(absl::StrCat(
        "malformed value: type_index ", value.type_index,
        " does not match its handle's type index ", value.u.obj->type_index));
  }
  *out = info;
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<TypedValue> Decode(const tsb_any& value) {
  BorrowedValue borrowed;
  TSB_RETURN_IF_ERROR(Borrow(value, &borrowed));
  if (borrowed.value == &borrowed.scratch) {
    return TypedValue{std::move(borrowed.scratch), borrowed.type};
  }
  return TypedValue{*borrowed.value, borrowed.type};
}

absl::Status Borrow(const tsb_any& value, BorrowedValue* out) {
  TSB_RETURN_IF_ERROR(CheckedType(value, &out->type));
  // Every handle decodes to its own IValue (KindCodec::Decode): borrow it.
  if (IsHandle(value)) {
    out->value = &value.u.obj->value;
    return absl::OkStatus();
  }
  out->value = &out->scratch;
  if (DecodeInlineLeaf(value, &out->scratch)) return absl::OkStatus();
  TSB_ASSIGN_OR_RETURN(out->scratch, out->type->codec->Decode(value));
  return absl::OkStatus();
}

bool DecodeInlineLeaf(const tsb_any& value, c10::IValue* out) {
  switch (value.type_index) {
    case TSB_TYPE_NONE:
      *out = c10::IValue();
      return true;
    case TSB_TYPE_BOOL:
      *out = c10::IValue(value.u.i != 0);
      return true;
    case TSB_TYPE_INT:
      *out = c10::IValue(value.u.i);
      return true;
    case TSB_TYPE_FLOAT:
      *out = c10::IValue(value.u.d);
      return true;
    case TSB_TYPE_UINT:  // false without a UInt tag: the codec says why
      return compat::MakeUInt(value.u.u, out);
    default:
      return false;
  }
}

void EncodeInt(const c10::IValue& value, tsb_any* out) {
  if (compat::IsUInt(value)) {
    out->type_index = TSB_TYPE_UINT;
    out->flags = 0;
    out->u.u = compat::ToUInt(value);
  } else {
    SetInline(TSB_TYPE_INT, value.toInt(), out);
  }
}

absl::StatusOr<c10::IValue> UIntValue(uint64_t u, absl::string_view expected,
                                      absl::string_view found) {
  c10::IValue out;
  if (u <= static_cast<uint64_t>(INT64_MAX)) return c10::IValue(static_cast<int64_t>(u));
  if (compat::MakeUInt(u, &out)) return out;
  return absl::UnimplementedError(absl::StrCat(
      "expected ", expected, ", got ", found, ", which needs LibTorch ", compat::kUIntRelease,
      " or newer (an int above INT64_MAX; this is LibTorch ", TORCH_VERSION, ")"));
}

namespace {

// The fixed index of a value of a leaf type ToBoundary writes itself, else
// TSB_TYPE_INVALID: those of LeafTypeIndex but complex and Device.
int32_t LeafIndex(const c10::IValue& value) {
  const int32_t leaf = LeafTypeIndex(value);
  return leaf == TSB_TYPE_COMPLEX || leaf == TSB_TYPE_DEVICE ? TSB_TYPE_INVALID : leaf;
}

// What the core's leaf codecs encode (scalar_codecs.cc inline, str and
// Tensor as a handle), without a registry lookup and a virtual call per
// value: containers write one per item. The fixed indices are the core's
// own codecs; no plugin can take their kinds. convert_fast_path_test.cc
// checks that both ways agree.
void EncodeLeaf(int32_t leaf, c10::IValue value, tsb_any* out) {
  switch (leaf) {
    case TSB_TYPE_NONE:
      SetInline(leaf, 0, out);
      return;
    case TSB_TYPE_BOOL:
      SetInline(leaf, value.toBool() ? 1 : 0, out);
      return;
    case TSB_TYPE_INT:
    case TSB_TYPE_UINT:
      EncodeInt(value, out);
      return;
    case TSB_TYPE_FLOAT:
      out->type_index = leaf;
      out->flags = 0;
      out->u.d = value.toDouble();
      return;
    default:  // str, Tensor
      *out = MakeHandle(leaf, std::move(value));
  }
}

}  // namespace

absl::Status ToBoundary(c10::IValue value, const TypeInfo& static_type,
                        tsb_any* out) {
  if (static_type.index < TSB_TYPE_FIRST_DYNAMIC && LeafIndex(value) == static_type.index) {
    EncodeLeaf(static_type.index, std::move(value), out);  // a leaf under its own type
    return absl::OkStatus();
  }
  if (!static_type.codec->is_abstract()) {
    return static_type.codec->Encode(std::move(value), static_type, out);
  }
  return ToBoundary(std::move(value), out);
}

absl::Status ToBoundary(c10::IValue value, tsb_any* out) {
  if (const int32_t leaf = LeafIndex(value); leaf != TSB_TYPE_INVALID) {
    EncodeLeaf(leaf, std::move(value), out);
    return absl::OkStatus();
  }
  TSB_ASSIGN_OR_RETURN(const TypeInfo* type, TypeOfValue(value));
  return type->codec->Encode(std::move(value), *type, out);
}

absl::StatusOr<c10::IValue> CoerceTo(const c10::IValue& value,
                                     const TypeInfo& expected) {
  if (IsLeafOfType(value, expected)) return value;  // no virtual call
  // A host's untyped value (JSON) reads itself as `expected`, handing what
  // it has no form for to the expected type's codec.
  if (value.isCapsule()) {
    if (const UntypedValue* untyped = AsUntyped(value)) return untyped->ReadAs(expected);
  }
  return expected.codec->Coerce(value, expected);
}

namespace {
std::string Truncated(std::string text, size_t limit = 40) {
  if (text.size() > limit) text = absl::StrCat(text.substr(0, limit), "...");
  return text;
}

// torch's own spelling of a dtype (torch.float32), not c10's ("Float").
std::string DtypeName(c10::ScalarType type) {
  switch (type) {
    case c10::ScalarType::Float: return "float32";
    case c10::ScalarType::Double: return "float64";
    case c10::ScalarType::Half: return "float16";
    case c10::ScalarType::BFloat16: return "bfloat16";
    case c10::ScalarType::Long: return "int64";
    case c10::ScalarType::Int: return "int32";
    case c10::ScalarType::Short: return "int16";
    case c10::ScalarType::Char: return "int8";
    case c10::ScalarType::Byte: return "uint8";
    case c10::ScalarType::Bool: return "bool";
    case c10::ScalarType::ComplexFloat: return "complex64";
    case c10::ScalarType::ComplexDouble: return "complex128";
    default: return c10::toString(type);
  }
}
}  // namespace

std::string DescribeValue(const c10::IValue& value) {
  if (value.isNone()) return "None";
  if (value.isBool()) return value.toBool() ? "bool True" : "bool False";
  if (value.isInt()) return absl::StrCat("int ", value.toInt());
  if (compat::IsUInt(value)) return absl::StrCat("int ", compat::ToUInt(value));
  if (value.isDouble()) return absl::StrCat("float ", value.toDouble());
  if (value.isString()) {
    return absl::StrCat("str \"", Truncated(value.toStringRef()), "\"");
  }
  if (value.isTensor()) {
    const at::Tensor& t = value.toTensor();
    if (!t.defined()) return "undefined Tensor";
    // One line, as PyTorch names dtypes: "Tensor float32 [2, 3]".
    return absl::StrCat("Tensor ", DtypeName(t.scalar_type()), " [",
                        absl::StrJoin(t.sizes(), ", "), "]");
  }
  if (value.isDevice()) {
    return absl::StrCat("Device \"", value.toDevice().str(), "\"");
  }
  if (value.isList()) {
    return absl::StrCat(value.type()->annotation_str(), " of length ",
                        value.toListRef().size());
  }
  if (value.isGenericDict()) {
    return absl::StrCat(value.type()->annotation_str(), " of length ",
                        value.toGenericDict().size());
  }
  if (value.isEnum()) {  // "__torch__.Color.RED", as TorchScript names it
    const auto& holder = value.toEnumHolder();
    return absl::StrCat(holder->qualifiedClassName(), ".", holder->name());
  }
  if (const UntypedValue* untyped = AsUntyped(value)) return untyped->Describe();
  if (value.isObject()) {  // LibTorch would print the object's address
    return absl::StrCat(value.toObjectRef().type()->annotation_str(), " object");
  }
  try {
    std::ostringstream text;
    text << value;
    std::string line = text.str();
    // A tensor inside prints whole, over several lines: say the type instead.
    if (line.find('\n') != std::string::npos && value.isTuple()) {
      return absl::StrCat(value.type()->annotation_str(), " of length ",
                          value.toTupleRef().elements().size());
    }
    line = Truncated(std::move(line));
    std::replace(line.begin(), line.end(), '\n', ' ');
    return absl::StrCat(value.type()->annotation_str(), " ", line);
  } catch (...) {
    return value.tagKind();
  }
}

std::string KeySegmentOf(const c10::IValue& key) {
  if (key.isString()) return StrKeySegment(key.toStringRef());
  if (key.isInt()) return IntKeySegment(key.toInt());
  if (compat::IsUInt(key)) return KeySegment(std::to_string(compat::ToUInt(key)));
  if (key.isDouble()) return FloatKeySegment(key.toDouble());
  if (key.isBool()) return BoolKeySegment(key.toBool());
  return KeySegment(DescribeValue(key));
}

absl::Status Mismatch(const TypeInfo& expected, const c10::IValue& found) {
  return TypeError(
      absl::StrCat("expected ", expected.annotation, ", got ", DescribeValue(found)));
}

}  // namespace tsb
