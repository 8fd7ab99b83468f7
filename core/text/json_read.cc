// JSON -> IValue, directed by the expected type: the same JSON 1 is an int,
// a float or a complex depending on what is expected. This file reads the
// leaves and the containers JSON has a form for (List, Dict); only `Any` and
// `Scalar` infer from the JSON itself (json_read_leaf.cc).
//
// Every other kind (Tuple, NamedTuple, Optional, Union, a plugin's kind) is
// not read here: the JSON value goes to that kind's codec as an untyped
// value (core/value/untyped.h), as a Python list goes to it from the Python
// host. The codec applies its own rule and reads the parts it wants with
// CoerceTo, which comes back here with a type for them; JSON null arrives as
// None. So each kind's rule has one home, its codec, and a plugin's kind
// reads from JSON without JSON code of its own.
#include <atomic>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/text/json_read.h"
#include "core/value/convert.h"
#include "core/value/untyped.h"

namespace tsb::text {
namespace {

absl::Status WrongJson(const TypeInfo& expected, const Json& found,
                       absl::string_view why = "") {
  return TypeError(
      absl::StrCat("expected ", expected.annotation, ", got ", DescribeJson(found), why));
}

// nlohmann-json reads an integer above INT64_MAX as number_unsigned: a UInt.
absl::StatusOr<c10::IValue> ReadInt(const Json& json, const TypeInfo& expected) {
  if (!json.is_number_integer()) return WrongJson(expected, json);
  if (json.is_number_unsigned()) {
    return UIntValue(json.get<uint64_t>(), expected.annotation, DescribeJson(json));
  }
  return c10::IValue(json.get<int64_t>());
}

absl::StatusOr<c10::IValue> ReadFloat(const Json& json, const TypeInfo& expected) {
  std::optional<double> d = FloatFromJson(json);
  if (!d) return WrongJson(expected, json);
  return c10::IValue(*d);
}

// A Device, dtype, layout or memory format: a name. The last three are ints
// inside an IValue and cross as such inside Optional, Union or Any, where
// they print as their code (docs/json.md): a code with a name reads too.
absl::StatusOr<c10::IValue> ReadNamed(const Json& json, const TypeInfo& expected) {
  const CodeNames* names = CodeNamesOf(expected.kind);  // nullptr: a device
  if (names != nullptr && json.is_number_integer()) {
    const int64_t code = json.get<int64_t>();
    if (!names->name(code)) {
      return WrongJson(expected, json,
                       absl::StrCat(", which is not a ", expected.annotation, " code"));
    }
    return c10::IValue(code);
  }
  if (!json.is_string()) return WrongJson(expected, json);
  const std::string& name = json.get_ref<const std::string&>();
  if (names == nullptr) {
    try {
      return c10::IValue(c10::Device(name));
    } catch (const c10::Error&) {
      return WrongJson(expected, json, ", which does not name a device");
    }
  }
  std::optional<int64_t> code = names->code(name);
  if (!code) return WrongJson(expected, json, absl::StrCat(", which is not a ",
                                                           expected.annotation, " name"));
  return c10::IValue(*code);
}

absl::StatusOr<c10::IValue> ReadList(const Json& json, const TypeInfo& expected,
                                     int depth, const DocumentRef& doc) {
  if (!json.is_array()) return WrongJson(expected, json);
  TSB_ASSIGN_OR_RETURN(const TypeInfo* element, FindType(expected.contained[0]));
  c10::impl::GenericList list(element->type);
  list.reserve(json.size());
  for (size_t i = 0; i < json.size(); ++i) {
    TSB_ASSIGN_OR_RETURN(c10::IValue item,
                         ReadNested(json[i], *element, depth, IndexSegment(i), doc));
    list.push_back(std::move(item));
  }
  return c10::IValue(std::move(list));
}

// Dict[str, V] is a JSON object; any other key type a JSON array of
// [key, value] pairs. A Dict[Any, V] takes either. A repeated key keeps its
// first position and its last value, as tsb_dict_new does.
absl::StatusOr<c10::IValue> ReadDict(const Json& json, const TypeInfo& expected,
                                     int depth, const DocumentRef& doc) {
  TSB_ASSIGN_OR_RETURN(const TypeInfo* key_type, FindType(expected.contained[0]));
  TSB_ASSIGN_OR_RETURN(const TypeInfo* value_type, FindType(expected.contained[1]));
  const bool str_keys = key_type->kind == TSB_KIND_STR;
  const bool any_keys = key_type->codec->is_abstract();
  c10::impl::GenericDict dict(key_type->type, value_type->type);
  if (json.is_object() && (str_keys || any_keys)) {
    dict.reserve(json.size());
    for (const auto& [key, item] : json.items()) {
      TSB_ASSIGN_OR_RETURN(
          c10::IValue v,
          ReadNested(item, *value_type, depth, StrKeySegment(key), doc));
      dict.insert_or_assign(c10::IValue(key), std::move(v));
    }
    return c10::IValue(std::move(dict));
  }
  if (!json.is_array() || str_keys) {
    return WrongJson(expected, json,
                     str_keys ? "" : " (a Dict whose keys are not str is a JSON array "
                                     "of [key, value] pairs)");
  }
  dict.reserve(json.size());
  for (size_t i = 0; i < json.size(); ++i) {
    const Json& pair = json[i];
    if (!pair.is_array() || pair.size() != 2) {
      return WithPath(TypeError(absl::StrCat("expected a [key, value] pair, got ",
                                             DescribeJson(pair))),
                      IndexSegment(i));
    }
    absl::StatusOr<c10::IValue> key = ReadNested(pair[0], *key_type, depth, "[0]", doc);
    if (!key.ok()) return WithPath(key.status(), IndexSegment(i));
    TSB_ASSIGN_OR_RETURN(c10::IValue v, ReadNested(pair[1], *value_type, depth,
                                                   KeySegmentOf(*key), doc));
    dict.insert_or_assign(*std::move(key), std::move(v));
  }
  return c10::IValue(std::move(dict));
}

absl::StatusOr<c10::IValue> ReadNumber(const Json& json, const TypeInfo& expected) {
  if (json.is_boolean()) return c10::IValue(json.get<bool>());
  if (json.is_number_integer()) return ReadInt(json, expected);
  if (json.is_object()) {
    TSB_ASSIGN_OR_RETURN(const TypeInfo* complex, FindType(TSB_TYPE_COMPLEX));
    return ReadComplex(json, *complex);
  }
  return ReadFloat(json, expected);
}

// A JSON value handed to a codec before its type is known: the codec reads
// it, or its parts, by CoerceTo, which calls ReadAs with the type it wants.
// It points into the document, which outlives the read; a codec that kept
// one past it (returned it unconverted) finds it refusing to be read.
class JsonValue final : public UntypedValue {
 public:
  JsonValue(DocumentRef doc, const Json* json, int depth)
      : doc_(std::move(doc)), json_(json), depth_(depth) {}

  absl::StatusOr<c10::IValue> ReadAs(const TypeInfo& expected) const override {
    TSB_RETURN_IF_ERROR(CheckAlive());
    return ReadAt(*json_, expected, depth_, doc_);
  }
  std::string Describe() const override {
    return Alive() ? DescribeJson(*json_) : "JSON value of a finished read";
  }
  std::optional<std::vector<c10::IValue>> Items() const override {
    if (!Alive() || !json_->is_array()) return std::nullopt;
    std::vector<c10::IValue> items;
    items.reserve(json_->size());
    for (const Json& item : *json_) items.push_back(Wrap(item));
    return items;
  }
  std::optional<std::vector<std::pair<std::string, c10::IValue>>> Fields() const override {
    if (!Alive() || !json_->is_object()) return std::nullopt;
    std::vector<std::pair<std::string, c10::IValue>> fields;
    fields.reserve(json_->size());
    for (const auto& [key, item] : json_->items()) fields.emplace_back(key, Wrap(item));
    return fields;
  }
  absl::StatusOr<c10::IValue> Natural() const override {
    TSB_RETURN_IF_ERROR(CheckAlive());
    return Infer(*json_, depth_);
  }

 private:
  bool Alive() const { return doc_->alive.load(std::memory_order_acquire); }
  absl::Status CheckAlive() const {
    if (Alive()) return absl::OkStatus();
    return absl::FailedPreconditionError(
        "a JSON value was kept past the tsb_json_read that read it (a codec "
        "returned it unconverted)");
  }
  c10::IValue Wrap(const Json& item) const {
    return WrapUntyped(c10::make_intrusive<JsonValue>(doc_, &item, depth_ + 1));
  }

  DocumentRef doc_;
  const Json* json_;
  int depth_;
};

// `expected` is a kind JSON has no form of its own for: its codec decides,
// from JSON null as None or from the untyped JSON value.
absl::StatusOr<c10::IValue> HandOver(const Json& json, const TypeInfo& expected, int depth,
                                     DocumentRef doc) {
  if (doc == nullptr) doc = std::make_shared<Document>();
  c10::IValue value = json.is_null()
                          ? c10::IValue()
                          : WrapUntyped(c10::make_intrusive<JsonValue>(doc, &json, depth));
  return expected.codec->Coerce(value, expected);
}

}  // namespace

absl::StatusOr<c10::IValue> ReadNested(const Json& json, const TypeInfo& expected, int depth,
                                       const std::string& segment, const DocumentRef& doc) {
  absl::StatusOr<c10::IValue> value = ReadAt(json, expected, depth + 1, doc);
  if (!value.ok()) return WithPath(value.status(), segment);
  return value;
}

absl::StatusOr<c10::IValue> ReadAt(const Json& json, const TypeInfo& expected, int depth,
                                   const DocumentRef& doc) {
  if (depth > kMaxDepth) {
    return absl::InvalidArgumentError(
        absl::StrCat("JSON nested deeper than ", kMaxDepth, " levels"));
  }
  // Enum and class types are recognised by LibTorch kind, so they read as
  // soon as a codec lets them be interned.
  switch (expected.type->kind()) {
    case c10::TypeKind::EnumType: return ReadEnum(json, expected);
    case c10::TypeKind::ClassType:
      return absl::UnimplementedError(absl::StrCat(
          "JSON cannot build an instance of class ", expected.annotation,
          ": construct it in TorchScript"));
    default: break;
  }
  switch (expected.kind) {
    case TSB_KIND_NONE:
      if (json.is_null()) return c10::IValue();
      return WrongJson(expected, json);
    case TSB_KIND_BOOL:
      if (json.is_boolean()) return c10::IValue(json.get<bool>());
      return WrongJson(expected, json);
    case TSB_KIND_INT:
    case TSB_KIND_UINT: return ReadInt(json, expected);
    case TSB_KIND_FLOAT: return ReadFloat(json, expected);
    case TSB_KIND_COMPLEX: return ReadComplex(json, expected);
    case TSB_KIND_STR:
      if (json.is_string()) return c10::IValue(json.get<std::string>());
      return WrongJson(expected, json);
    case TSB_KIND_TENSOR: return ReadTensor(json, expected);
    case TSB_KIND_DEVICE:
    case TSB_KIND_DTYPE:
    case TSB_KIND_LAYOUT:
    case TSB_KIND_MEMORY_FORMAT: return ReadNamed(json, expected);
    case TSB_KIND_NUMBER: return ReadNumber(json, expected);
    case TSB_KIND_ANY: return Infer(json, depth);
    case TSB_KIND_LIST: return ReadList(json, expected, depth, doc);
    case TSB_KIND_DICT: return ReadDict(json, expected, depth, doc);
    default: return HandOver(json, expected, depth, doc);
  }
}

absl::StatusOr<c10::IValue> Read(const Json& json, const TypeInfo& expected) {
  auto doc = std::make_shared<Document>();
  absl::StatusOr<c10::IValue> value = ReadAt(json, expected, 0, doc);
  doc->alive.store(false, std::memory_order_release);
  if (value.ok() && IsUntyped(*value)) {
    return absl::UnimplementedError(absl::StrCat(
        expected.annotation, " cannot be read from JSON: its codec returned the JSON "
                             "value unconverted"));
  }
  return value;
}

}  // namespace tsb::text
