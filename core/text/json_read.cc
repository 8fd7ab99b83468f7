// JSON -> IValue, directed by the expected type: the same JSON 1 is an int,
// a float or a complex depending on what is expected, and [1, 2] is a List
// or a Tuple. Only `Any` infers from the JSON itself (json_infer.cc).
//
// Every IValue built here already has the expected type (typed lists and
// dicts, tuples carrying their TupleType), so the result needs no coercion.
#include <algorithm>
#include <string>
#include <vector>

#include <ATen/core/function_schema.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/text/json_read.h"

namespace tsb::json {
namespace {

std::string Field(absl::string_view name) { return absl::StrCat("field '", name, "'"); }

absl::Status WrongJson(const TypeInfo& expected, const Json& found,
                       absl::string_view why = "") {
  return TypeError(
      absl::StrCat("expected ", expected.annotation, ", got ", DescribeJson(found), why));
}

absl::StatusOr<c10::IValue> ReadInt(const Json& json, const TypeInfo& expected) {
  if (!json.is_number_integer()) return WrongJson(expected, json);
  if (json.is_number_unsigned() &&
      json.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
    return WrongJson(expected, json, ", which is out of range for int (64 bits)");
  }
  return c10::IValue(json.get<int64_t>());
}

absl::StatusOr<c10::IValue> ReadFloat(const Json& json, const TypeInfo& expected) {
  std::optional<double> d = FloatFromJson(json);
  if (!d) return WrongJson(expected, json);
  return c10::IValue(*d);
}

// A Device, dtype, layout or memory format: a name.
absl::StatusOr<c10::IValue> ReadNamed(const Json& json, const TypeInfo& expected) {
  if (!json.is_string()) return WrongJson(expected, json);
  const std::string& name = json.get_ref<const std::string&>();
  if (expected.kind == TSB_KIND_DEVICE) {
    try {
      return c10::IValue(c10::Device(name));
    } catch (const c10::Error&) {
      return WrongJson(expected, json, ", which does not name a device");
    }
  }
  std::optional<int64_t> code = expected.kind == TSB_KIND_DTYPE  ? DtypeCode(name)
                                : expected.kind == TSB_KIND_LAYOUT ? LayoutCode(name)
                                                                   : MemoryFormatCode(name);
  if (!code) return WrongJson(expected, json, absl::StrCat(", which is not a ",
                                                           expected.annotation, " name"));
  return c10::IValue(*code);
}

absl::StatusOr<c10::IValue> ReadList(const Json& json, const TypeInfo& expected,
                                     int depth) {
  if (!json.is_array()) return WrongJson(expected, json);
  TSB_ASSIGN_OR_RETURN(const TypeInfo* element, FindType(expected.contained[0]));
  c10::impl::GenericList list(element->type);
  list.reserve(json.size());
  for (size_t i = 0; i < json.size(); ++i) {
    TSB_ASSIGN_OR_RETURN(c10::IValue item,
                         ReadNested(json[i], *element, depth, IndexSegment(i)));
    list.push_back(std::move(item));
  }
  return c10::IValue(std::move(list));
}

std::string KeyRepr(const c10::IValue& key) {
  if (key.isString()) return absl::StrCat("\"", key.toStringRef(), "\"");
  if (key.isInt()) return absl::StrCat(key.toInt());
  return DescribeValue(key);
}

// Dict[str, V] is a JSON object; any other key type a JSON array of
// [key, value] pairs. A Dict[Any, V] takes either. A repeated key keeps its
// first position and its last value, as tsb_dict_new does.
absl::StatusOr<c10::IValue> ReadDict(const Json& json, const TypeInfo& expected,
                                     int depth) {
  TSB_ASSIGN_OR_RETURN(const TypeInfo* key_type, FindType(expected.contained[0]));
  TSB_ASSIGN_OR_RETURN(const TypeInfo* value_type, FindType(expected.contained[1]));
  const bool str_keys = key_type->kind == TSB_KIND_STR;
  const bool any_keys = key_type->codec->is_abstract();
  c10::impl::GenericDict dict(key_type->type, value_type->type);
  if (json.is_object() && (str_keys || any_keys)) {
    dict.reserve(json.size());
    for (const auto& [key, item] : json.items()) {
      TSB_ASSIGN_OR_RETURN(c10::IValue v, ReadNested(item, *value_type, depth,
                                                     KeySegment(absl::StrCat("\"", key, "\""))));
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
    absl::StatusOr<c10::IValue> key = ReadNested(pair[0], *key_type, depth, "[0]");
    if (!key.ok()) return WithPath(key.status(), IndexSegment(i));
    TSB_ASSIGN_OR_RETURN(c10::IValue v, ReadNested(pair[1], *value_type, depth,
                                                   KeySegment(KeyRepr(*key))));
    dict.insert_or_assign(*std::move(key), std::move(v));
  }
  return c10::IValue(std::move(dict));
}

// A Tuple is an array of exactly its arity. A NamedTuple is an object with
// its field names (a field with a default may be left out) or an array.
absl::StatusOr<c10::IValue> ReadTuple(const Json& json, const TypeInfo& expected,
                                      int depth) {
  const size_t n = expected.contained.size();
  const bool named = expected.kind == TSB_KIND_NAMEDTUPLE;
  std::vector<c10::IValue> elements;
  elements.reserve(n);
  if (json.is_array()) {
    if (json.size() != n) {
      return WrongJson(expected, json,
                       absl::StrCat(", which needs ", n, n == 1 ? " element" : " elements"));
    }
    for (size_t i = 0; i < n; ++i) {
      TSB_ASSIGN_OR_RETURN(const TypeInfo* element, FindType(expected.contained[i]));
      TSB_ASSIGN_OR_RETURN(
          c10::IValue item,
          ReadNested(json[i], *element, depth,
                     named ? Field(expected.field_names[i]) : IndexSegment(i)));
      elements.push_back(std::move(item));
    }
  } else if (named && json.is_object()) {
    for (const auto& [key, unused] : json.items()) {
      if (std::find(expected.field_names.begin(), expected.field_names.end(), key) ==
          expected.field_names.end()) {
        return TypeError(absl::StrCat(expected.annotation, " has no field '", key,
                                      "' (fields: ",
                                      absl::StrJoin(expected.field_names, ", "), ")"));
      }
    }
    const c10::FunctionSchema* schema =
        expected.type->expectRef<c10::TupleType>().schema().get();
    for (size_t i = 0; i < n; ++i) {
      const std::string& name = expected.field_names[i];
      auto it = json.find(name);
      if (it == json.end()) {
        // Defaults written in the NamedTuple's Python definition.
        if (schema != nullptr && i < schema->arguments().size() &&
            schema->arguments()[i].default_value()) {
          elements.push_back(*schema->arguments()[i].default_value());
          continue;
        }
        return TypeError(absl::StrCat("missing field '", name, "' of ",
                                      expected.annotation));
      }
      TSB_ASSIGN_OR_RETURN(const TypeInfo* element, FindType(expected.contained[i]));
      TSB_ASSIGN_OR_RETURN(c10::IValue item, ReadNested(*it, *element, depth, Field(name)));
      elements.push_back(std::move(item));
    }
  } else {
    return WrongJson(expected, json);
  }
  // Carries `expected` as its type: a NamedTuple keeps its name, and a
  // Tuple[Optional[int]] stays one.
  return c10::IValue(c10::ivalue::Tuple::createNamed(std::move(elements), expected.type));
}

// "expected int, got JSON string \"x\"" -> "expected Optional[int], ...", as
// plugins/optional restates a direct mismatch.
absl::Status Restate(absl::Status inner, const TypeInfo& element,
                     const TypeInfo& optional) {
  if (!IsTypeError(inner) || !PathOf(inner).empty()) return inner;
  absl::string_view message = inner.message();
  const std::string prefix = absl::StrCat("expected ", element.annotation, ", got ");
  if (message.substr(0, prefix.size()) != prefix) return inner;
  message.remove_prefix(prefix.size() - 6);  // keep ", got "
  return TypeError(absl::StrCat("expected ", optional.annotation, message));
}

absl::StatusOr<c10::IValue> ReadOptional(const Json& json, const TypeInfo& expected,
                                         int depth) {
  if (json.is_null()) return c10::IValue();
  TSB_ASSIGN_OR_RETURN(const TypeInfo* element, FindType(expected.contained[0]));
  absl::StatusOr<c10::IValue> value = ReadAt(json, *element, depth);
  if (value.ok()) return value;
  return Restate(std::move(value).status(), *element, expected);
}

// Each member reads the JSON; exactly one success wins. When several do
// (1 for Union[int, float]), the JSON's natural value (what Any would read)
// is coerced to the Union by plugins/optional's rule: its own type if that
// is a member, else the one member it converts to, else "ambiguous".
absl::StatusOr<c10::IValue> ReadUnion(const Json& json, const TypeInfo& expected,
                                      int depth) {
  std::vector<c10::IValue> accepted;
  absl::Status deep_failure;
  int deep_failures = 0;
  for (int32_t index : expected.contained) {
    TSB_ASSIGN_OR_RETURN(const TypeInfo* member, FindType(index));
    absl::StatusOr<c10::IValue> value = ReadAt(json, *member, depth);
    if (value.ok()) {
      accepted.push_back(*std::move(value));
    } else if (!IsTypeError(value.status())) {
      return value.status();
    } else if (!PathOf(value.status()).empty()) {
      ++deep_failures;
      deep_failure = value.status();
    }
  }
  if (accepted.size() == 1) return std::move(accepted[0]);
  if (accepted.size() > 1) {
    TSB_ASSIGN_OR_RETURN(c10::IValue natural, Infer(json, depth));
    return CoerceTo(natural, expected);
  }
  if (deep_failures == 1) return deep_failure;
  return WrongJson(expected, json);
}

absl::StatusOr<c10::IValue> ReadNumber(const Json& json, const TypeInfo& expected,
                                       int depth) {
  if (json.is_boolean()) return c10::IValue(json.get<bool>());
  if (json.is_number_integer()) return ReadInt(json, expected);
  if (json.is_object()) {
    TSB_ASSIGN_OR_RETURN(const TypeInfo* complex, FindType(TSB_TYPE_COMPLEX));
    return ReadComplex(json, *complex);
  }
  return ReadFloat(json, expected);
}

}  // namespace

absl::StatusOr<c10::IValue> ReadNested(const Json& json, const TypeInfo& expected,
                                       int depth, const std::string& segment) {
  absl::StatusOr<c10::IValue> value = ReadAt(json, expected, depth + 1);
  if (!value.ok()) return WithPath(value.status(), segment);
  return value;
}

absl::StatusOr<c10::IValue> ReadAt(const Json& json, const TypeInfo& expected,
                                   int depth) {
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
    case TSB_KIND_INT: return ReadInt(json, expected);
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
    case TSB_KIND_NUMBER: return ReadNumber(json, expected, depth);
    case TSB_KIND_ANY: return Infer(json, depth);
    case TSB_KIND_LIST: return ReadList(json, expected, depth);
    case TSB_KIND_DICT: return ReadDict(json, expected, depth);
    case TSB_KIND_TUPLE:
    case TSB_KIND_NAMEDTUPLE: return ReadTuple(json, expected, depth);
    case TSB_KIND_OPTIONAL: return ReadOptional(json, expected, depth);
    case TSB_KIND_UNION: return ReadUnion(json, expected, depth);
    default:
      return absl::UnimplementedError(
          absl::StrCat(expected.annotation, " cannot be read from JSON"));
  }
}

absl::StatusOr<c10::IValue> Read(const Json& json, const TypeInfo& expected) {
  return ReadAt(json, expected, 0);
}

}  // namespace tsb::json
