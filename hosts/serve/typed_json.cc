#include "hosts/serve/typed_json.h"

#include <cmath>
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

// kit::Walk's host writing tsb_json_write's JSON (docs/json.md) of the same
// kinds; every other kind, and a value whose text differs (a NaN, a str
// past ASCII, a tensor with requires_grad), is left to the text.
class JsonOut {
 public:
  using Out = Json;
  using Entry = kit::TypeInfo;
  using Guard = kit::NestingGuard;

  const Entry& Type(int32_t index) { return TypeOf(index); }
  Json None() { return nullptr; }
  Json Bool(bool b) { return b; }
  Json Int(int64_t i) { return i; }
  Json UInt(uint64_t) { throw Unsupported{}; }
  Json Float(double d) {
    if (!std::isfinite(d)) throw Unsupported{};  // the text's "NaN" strings
    return d;
  }
  Json Complex(double, double) { throw Unsupported{}; }
  Json Str(const char* s, size_t n) {
    for (size_t i = 0; i < n; ++i) {
      if (static_cast<unsigned char>(s[i]) >= 0x80) throw Unsupported{};
    }
    return std::string(s, n);
  }
  Json Tensor(const tsb_any& tensor) {
    bool grad = true;
    if (tsb_status* failed = tsb_tensor_get_requires_grad(&tensor, &grad)) {
      tsb_status_free(failed);  // an undefined tensor (null): the text writes it
      throw Unsupported{};
    }
    std::string dtype;
    std::vector<int64_t> shape;
    std::optional<Json> data = grad ? std::nullopt : NumbersOfTensor(tensor, dtype, shape);
    if (!data) throw Unsupported{};
    Json out = Json::object();
    out["dtype"] = dtype;
    out["shape"] = shape;
    out["data"] = std::move(*data);
    return out;
  }
  Json TorchEnum(int32_t, int64_t) { throw Unsupported{}; }
  Json IntList(const Entry&, const int64_t* p, size_t n) {
    Json out = Json::array();
    for (size_t i = 0; i < n; ++i) out.push_back(p[i]);
    return out;
  }
  Json FloatList(const Entry&, const double* p, size_t n) {
    Json out = Json::array();
    for (size_t i = 0; i < n; ++i) out.push_back(Float(p[i]));
    return out;
  }
  Json BoolList(const Entry&, const bool* p, size_t n) {
    Json out = Json::array();
    for (size_t i = 0; i < n; ++i) out.push_back(p[i]);
    return out;
  }
  Json List(const Entry&, kit::Items<JsonOut>& items) {
    Json out = Json::array();
    for (size_t i = 0; i < items.size(); ++i) out.push_back(items.Walk(i));
    return out;
  }
  Json Tuple(const Entry& type, kit::Items<JsonOut>& items) {
    if (type.kind != TSB_KIND_TUPLE) throw Unsupported{};  // a NamedTuple is an object
    return List(type, items);
  }
  Json Dict(const Entry& type, kit::DictItems<JsonOut>& items) {
    if (type.contained[0] != TSB_TYPE_STR) throw Unsupported{};  // pairs, or Any's rule
    Json out = Json::object();
    for (size_t i = 0; i < items.size(); ++i) {
      out.emplace(items.Key(i).get<std::string>(), items.Value(i));
    }
    return out;
  }
  Json Enum(const Entry&, const tsb_any&) { throw Unsupported{}; }
  Json Object(const Entry&, const tsb_any&) { throw Unsupported{}; }
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

bool WriteTypedJsonDirect(const tsb_any& value, Json& out) {
  try {
    JsonOut host;
    out = kit::Walk(host, value);
    return true;
  } catch (const Unsupported&) {
  } catch (const kit::ConvertError&) {
  }
  return false;
}

void ReadTypedJson(const Json& json, int32_t type, tsb_any* out) {
  if (ReadTypedJsonDirect(json, type, out)) return;
  kit::CheckStatus(tsb_json_read(json.dump().c_str(), type, out));
}

Json WriteTypedJson(const tsb_any& value) {
  Json json;
  if (WriteTypedJsonDirect(value, json)) return json;
  char* text = nullptr;
  if (tsb_status* status = tsb_json_write(&value, &text)) {
    Status owned(status);
    throw HttpError{500, "cannot write the result as JSON: " + owned.message()};
  }
  json = Json::parse(text);  // written by tsbridge: valid
  tsb_string_free(text);
  return json;
}

}  // namespace tsb::serve
