#include "hosts/serve/typed_json.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "hosts/serve/binary_data.h"
#include "tsbridge/host/kit.hpp"

namespace tsb::serve {
namespace {

// The direct route leaves the value to the text (a kind it does not take,
// or a value the text reader may answer otherwise: its error).
struct Unsupported {};

struct Entry : kit::TypeInfo {
  void Complete() {}
};

// Not locked (kit::TypeCache): one per worker thread.
const kit::TypeInfo& TypeOf(int32_t index) {
  thread_local kit::TypeCache<Entry> types;
  return types.Get(index);
}

bool FitsInt64(const Json& json) {
  return json.is_number_integer() &&
         (!json.is_number_unsigned() ||
          json.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()));
}

// A str of its own: the value may outlive the JSON it was read from.
tsb_any StrOf(const std::string& s) {
  tsb_any str = tsb_any_none();
  kit::CheckStatus(tsb_str_new(s.data(), s.size(), &str));
  return str;
}

// {"dtype", "shape", "data"} and no other key, data flat (docs/json.md),
// filled as the protocol's tensor data is (TensorFromNumbers).
Value TensorOf(const Json& json) {
  if (!json.is_object() || json.size() != 3) throw Unsupported{};
  const auto dtype = json.find("dtype"), shape = json.find("shape"), data = json.find("data");
  if (dtype == json.end() || shape == json.end() || data == json.end() || !dtype->is_string() ||
      !shape->is_array() || !data->is_array()) {
    throw Unsupported{};
  }
  std::vector<int64_t> dims;
  for (const Json& d : *shape) {
    if (!FitsInt64(d) || d.get<int64_t>() < 0) throw Unsupported{};
    dims.push_back(d.get<int64_t>());
  }
  for (const Json& x : *data) {
    if (x.is_array()) throw Unsupported{};
  }
  std::optional<Value> tensor = TensorFromNumbers(dtype->get_ref<const std::string&>(), dims, *data);
  if (!tensor) throw Unsupported{};
  return std::move(*tensor);
}

// `json` as `type`, with the kit's builders: one tsb_any_unflatten for a
// whole nested value.
void Read(const Json& json, int32_t type, kit::BuildContext& context, tsb_any* out) {
  switch (type) {
    case TSB_TYPE_TENSOR: *out = TensorOf(json).release(); return;
    case TSB_TYPE_INT:
      if (!FitsInt64(json)) throw Unsupported{};
      *out = tsb_any_int(json.get<int64_t>());
      return;
    case TSB_TYPE_FLOAT:  // a number; an integer as its double (1 → 1.0)
      if (json.is_number_float()) {
        *out = tsb_any_float(json.get<double>());
      } else if (FitsInt64(json)) {
        *out = tsb_any_float(static_cast<double>(json.get<int64_t>()));
      } else {
        throw Unsupported{};
      }
      return;
    case TSB_TYPE_BOOL:
      if (!json.is_boolean()) throw Unsupported{};
      *out = tsb_any_bool(json.get<bool>());
      return;
    case TSB_TYPE_STR:
      if (!json.is_string()) throw Unsupported{};
      *out = StrOf(json.get_ref<const std::string&>());
      return;
    default:
      break;
  }
  if (type < TSB_TYPE_FIRST_DYNAMIC) throw Unsupported{};
  const kit::TypeInfo& t = TypeOf(type);
  switch (t.kind) {
    case TSB_KIND_LIST: {
      if (!json.is_array()) throw Unsupported{};
      kit::ListBuilder list(context, t.contained[0], json.size());
      for (size_t i = 0; i < json.size(); ++i) {
        list.Item(i, [&](tsb_any* item) { Read(json[i], t.contained[0], context, item); });
      }
      return list.Finish(out);
    }
    case TSB_KIND_DICT: {
      if (t.contained[0] != TSB_TYPE_STR || !json.is_object()) throw Unsupported{};
      kit::DictBuilder dict(context, TSB_TYPE_STR, t.contained[1], json.size());
      size_t i = 0;
      for (const auto& entry : json.items()) {
        const std::string& key = entry.key();
        const Json& value = entry.value();
        dict.Entry(
            i++, [&] { return kit::StrKeySegment(key); }, [&](tsb_any* k) { *k = StrOf(key); },
            [&](tsb_any* v) { Read(value, t.contained[1], context, v); });
      }
      return dict.Finish(out);
    }
    case TSB_KIND_TUPLE: {  // an array of the arity (plugins/tuple's rule)
      if (!json.is_array() || json.size() != t.contained.size()) throw Unsupported{};
      kit::TupleBuilder<kit::TypeInfo> tuple(context, &t, json.size());
      for (size_t i = 0; i < json.size(); ++i) {
        tuple.Item(i, [&](tsb_any* item) { Read(json[i], tuple.element(i), context, item); });
      }
      return tuple.Finish(out);
    }
    case TSB_KIND_OPTIONAL:
      if (json.is_null()) {
        *out = tsb_any_none();
        return;
      }
      return Read(json, t.contained[0], context, out);
    default:
      throw Unsupported{};
  }
}

// kit::Walk's host writing tsb_json_write's typed JSON (docs/json.md) of the
// same kinds as text, appended as the walk goes: no JSON document in
// between. Every other kind, and a value whose text differs (a NaN, a str
// past ASCII, a tensor with requires_grad), is left to tsb_json_write.
class JsonText {
 public:
  struct Out {};  // what the walk gives back: the text is in `text_`
  using Entry = kit::TypeInfo;
  using Guard = kit::NestingGuard;

  explicit JsonText(std::string& text) : text_(text) {}

  const Entry& Type(int32_t index) { return TypeOf(index); }
  Out None() { return Append("null"); }
  Out Bool(bool b) { return Append(b ? "true" : "false"); }
  Out Int(int64_t i) {
    AppendJsonNumber(i, text_);
    return {};
  }
  Out UInt(uint64_t) { throw Unsupported{}; }
  Out Float(double d) {
    if (!AppendJsonNumber(d, text_)) throw Unsupported{};  // the text's "NaN" strings
    return {};
  }
  Out Complex(double, double) { throw Unsupported{}; }
  Out Str(const char* s, size_t n) {
    text_ += '"';
    for (size_t i = 0; i < n; ++i) {
      const auto c = static_cast<unsigned char>(s[i]);
      if (c >= 0x80) throw Unsupported{};
      if (c == '"' || c == '\\') {
        text_ += '\\';
        text_ += static_cast<char>(c);
      } else if (c < 0x20) {
        static constexpr char kHex[] = "0123456789abcdef";
        text_ += "\\u00";
        text_ += kHex[c >> 4];
        text_ += kHex[c & 15];
      } else {
        text_ += static_cast<char>(c);
      }
    }
    text_ += '"';
    return {};
  }
  Out Tensor(const tsb_any& tensor) {
    bool grad = true;
    if (tsb_status* failed = tsb_tensor_get_requires_grad(&tensor, &grad)) {
      tsb_status_free(failed);  // an undefined tensor (null): the text writes it
      throw Unsupported{};
    }
    std::string dtype;
    std::vector<int64_t> shape;
    numbers_.clear();
    if (grad || !AppendNumbersOfTensor(tensor, dtype, shape, numbers_)) throw Unsupported{};
    text_ += "{\"dtype\":\"";
    text_ += dtype;
    text_ += "\",\"shape\":[";
    for (size_t i = 0; i < shape.size(); ++i) {
      if (i > 0) text_ += ',';
      AppendJsonNumber(shape[i], text_);
    }
    text_ += "],\"data\":";
    text_ += numbers_;
    return Append("}");
  }
  Out TorchEnum(int32_t, int64_t) { throw Unsupported{}; }
  Out IntList(const Entry&, const int64_t* p, size_t n) {
    return Array(n, [&](size_t i) { Int(p[i]); });
  }
  Out FloatList(const Entry&, const double* p, size_t n) {
    return Array(n, [&](size_t i) { Float(p[i]); });
  }
  Out BoolList(const Entry&, const bool* p, size_t n) {
    return Array(n, [&](size_t i) { Bool(p[i]); });
  }
  Out List(const Entry&, kit::Items<JsonText>& items) {
    return Array(items.size(), [&](size_t i) { items.Walk(i); });
  }
  Out Tuple(const Entry& type, kit::Items<JsonText>& items) {
    if (type.kind != TSB_KIND_TUPLE) throw Unsupported{};  // a NamedTuple is an object
    return List(type, items);
  }
  Out Dict(const Entry& type, kit::DictItems<JsonText>& items) {
    if (type.contained[0] != TSB_TYPE_STR) throw Unsupported{};  // pairs, or Any's rule
    text_ += '{';
    for (size_t i = 0; i < items.size(); ++i) {
      if (i > 0) text_ += ',';
      items.Key(i);
      text_ += ':';
      items.Value(i);
    }
    return Append("}");
  }
  Out Enum(const Entry&, const tsb_any&) { throw Unsupported{}; }
  Out Object(const Entry&, const tsb_any&) { throw Unsupported{}; }

 private:
  Out Append(const char* s) {
    text_ += s;
    return {};
  }
  template <typename Item>
  Out Array(size_t n, Item&& item) {
    text_ += '[';
    for (size_t i = 0; i < n; ++i) {
      if (i > 0) text_ += ',';
      item(i);
    }
    return Append("]");
  }

  std::string& text_;
  std::string numbers_;  // a tensor's, reused
};

}  // namespace

bool ReadTypedJsonDirect(const Json& json, int32_t type, tsb_any* out) {
  try {
    kit::BuildContext context;
    Read(json, type, context, out);
    return true;
  } catch (const Unsupported&) {
  } catch (const kit::ConvertError&) {  // the library refused it: the text says how
  }
  return false;
}

void ReadTypedJson(const Json& json, int32_t type, tsb_any* out) {
  if (ReadTypedJsonDirect(json, type, out)) return;
  kit::CheckStatus(tsb_json_read(json.dump().c_str(), type, out));
}

bool WriteTypedJsonDirect(const tsb_any& value, std::string& out) {
  out.clear();
  try {
    JsonText host(out);
    kit::Walk(host, value);
    return true;
  } catch (const Unsupported&) {
  } catch (const kit::ConvertError&) {
  }
  out.clear();
  return false;
}

std::string WriteTypedJson(const tsb_any& value) {
  std::string out;
  if (WriteTypedJsonDirect(value, out)) return out;
  char* text = nullptr;
  if (tsb_status* status = tsb_json_write(&value, &text)) {
    Status owned(status);
    throw HttpError{500, "cannot write the result as JSON: " + owned.message()};
  }
  out = text;
  tsb_string_free(text);
  return out;
}

}  // namespace tsb::serve
