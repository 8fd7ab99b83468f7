#include "apps/tsb/inputs.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

namespace tsb::cli {
namespace {

std::string ReadStream(std::istream& in) {
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

tsb_type_info TypeInfo(int32_t type) {
  tsb_type_info info{};
  info.struct_size = sizeof(info);
  Check(tsb_type_get_info(type, &info), "cannot describe type " + std::to_string(type));
  return info;
}

// {"file": PATH} or {"image": PATH[, "dtype": ...]}.
bool IsFileForm(const Json& json) {
  if (!json.is_object()) return false;
  if (json.size() == 1 && json.contains("file")) return json["file"].is_string();
  if (json.contains("image") && json["image"].is_string()) {
    return json.size() == 1 || (json.size() == 2 && json.contains("dtype"));
  }
  return false;
}

// {"dtype": ..., "shape": ..., "data": ...}: what Any reads as a Dict, but
// an untyped argument (an operator with several overloads) means as a Tensor.
bool IsTensorObject(const Json& json) {
  return json.is_object() && json.contains("dtype") && json.contains("shape") &&
         json.contains("data");
}

// Whether `json` must be built piece by piece rather than read whole by
// tsb_json_read: it holds a file form, or a tensor object where Any is read.
bool NeedsBuilding(const Json& json, bool untyped) {
  if (IsFileForm(json) || (untyped && IsTensorObject(json))) return true;
  if (json.is_array() || json.is_object()) {
    for (const auto& item : json) {
      if (NeedsBuilding(item, untyped)) return true;
    }
  }
  return false;
}

std::string ReadBinaryFile(const std::string& path, const std::string& where) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw Failure(where + ": cannot read \"" + path + "\": " + std::strerror(errno));
  return std::string(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
}

// A value torch.save wrote (a tensor, or any value), by the pickle reader.
Value LoadSaved(const std::string& path, const std::string& where) {
  std::string bytes = ReadBinaryFile(path, where);
  Value value;
  Check(tsb_pickle_read(bytes.data(), bytes.size(), value.out()),
        where + ": \"" + path + "\" is not a file torch.save wrote");
  return value;
}

Value CallOp(const char* op, std::vector<tsb_any> args, const std::string& where) {
  tsb_call_args call = tsb_call_args_make(args.data(), args.size());
  Value out;
  Check(tsb_op_call(op, &call, out.out()), where + ": " + op);
  return out;
}

// An image file as a CHW RGB tensor: float32 in [0, 1] as torchvision's
// models take it (convert_image_dtype), or uint8 as decoded.
Value LoadImage(const Json& form, const std::string& where) {
  std::string path = form["image"].get<std::string>();
  std::string dtype = form.value("dtype", "float32");
  if (dtype != "float32" && dtype != "uint8") {
    throw Failure(where + ": an image's \"dtype\" is \"float32\" or \"uint8\", got \"" + dtype +
                  "\"");
  }
  size_t overloads = 0;
  if (tsb_status* status = tsb_op_count_overloads("image::decode_image", &overloads)) {
    tsb_status_free(status);
    throw Failure(where + ": {\"image\": ...} is decoded by torchvision's image operators, "
                  "which are not loaded: add --library torchvision");
  }
  if (!std::ifstream(path).good()) {
    throw Failure(where + ": cannot read \"" + path + "\": " + std::strerror(errno));
  }
  Value data = CallOp("image::read_file", {tsb_any_borrowed_str(path.c_str())}, where);
  constexpr int64_t kRgb = 3;  // torchvision.io.ImageReadMode.RGB
  Value image = CallOp("image::decode_image", {data.get(), tsb_any_int(kRgb)},
                       where + ": cannot decode \"" + path + "\"");
  if (dtype == "uint8") return image;
  return CallOp("aten::div", {image.get(), tsb_any_int(255)}, where);
}

Value Coerce(Value value, int32_t type, const std::string& where) {
  if (type == TSB_TYPE_ANY || value.get().type_index == type) return value;
  Value out;
  CheckAt(tsb_any_coerce(&value.get(), type, out.out()), where);
  return out;
}

Value Read(const Json& json, int32_t type, const std::string& context,
           const std::string& path) {
  const std::string where = JoinPath(context, path);
  const bool untyped = type == TSB_TYPE_ANY;
  if (!NeedsBuilding(json, untyped) || (untyped && IsTensorObject(json))) {
    Value value;
    const int32_t read_as = untyped && IsTensorObject(json) ? TSB_TYPE_TENSOR : type;
    CheckAt(tsb_json_read(json.dump().c_str(), read_as, value.out()), where);
    return value;
  }
  tsb_type_info info = TypeInfo(type);
  if (info.kind == TSB_KIND_OPTIONAL) {
    return Coerce(Read(json, info.contained[0], context, path), type, where);
  }
  if (IsFileForm(json) && info.kind != TSB_KIND_DICT) {
    Value value = json.contains("file") ? LoadSaved(json["file"].get<std::string>(), where) : LoadImage(json, where);
    return Coerce(std::move(value), type, where);
  }
  if (json.is_array()) {
    std::vector<Value> items;
    std::vector<tsb_any> raw;
    for (size_t i = 0; i < json.size(); ++i) {
      int32_t element = TSB_TYPE_ANY;
      if (info.kind == TSB_KIND_LIST) element = info.contained[0];
      if ((info.kind == TSB_KIND_TUPLE || info.kind == TSB_KIND_NAMEDTUPLE) &&
          i < info.num_contained) {
        element = info.contained[i];
      }
      items.push_back(
          Read(json[i], element, context, JoinPath(path, "[" + std::to_string(i) + "]")));
      raw.push_back(items.back().get());
    }
    Value built;
    if (info.kind == TSB_KIND_TUPLE || info.kind == TSB_KIND_NAMEDTUPLE) {
      CheckAt(tsb_tuple_new(raw.data(), raw.size(), built.out()), where);
    } else {
      CheckAt(tsb_list_new(TSB_TYPE_ANY, raw.data(), raw.size(), built.out()), where);
    }
    return Coerce(std::move(built), type, where);
  }
  // A JSON object holding a file form: a Dict's values may be files.
  if (info.kind != TSB_KIND_DICT && info.kind != TSB_KIND_ANY) {
    throw Failure(where + ": {\"file\": ...} and {\"image\": ...} may stand for a value, a "
                  "list or tuple item or a Dict value, not inside a " +
                  std::string(info.annotation));
  }
  int32_t key_type = info.kind == TSB_KIND_DICT ? info.contained[0] : TSB_TYPE_STR;
  int32_t value_type = info.kind == TSB_KIND_DICT ? info.contained[1] : TSB_TYPE_ANY;
  std::vector<Value> keys, values;
  std::vector<tsb_any> raw_keys, raw_values;
  for (const auto& [key, item] : json.items()) {
    std::string step = "key \"" + key + "\"";
    keys.push_back(Read(Json(key), key_type, context, JoinPath(path, step)));
    values.push_back(Read(item, value_type, context, JoinPath(path, step)));
    raw_keys.push_back(keys.back().get());
    raw_values.push_back(values.back().get());
  }
  Value dict;
  CheckAt(tsb_dict_new(key_type, value_type, raw_keys.data(), raw_values.data(),
                       raw_keys.size(), dict.out()),
          where);
  return Coerce(std::move(dict), type, where);
}

}  // namespace

std::string ReadOptionText(const std::string& value, const std::string& option) {
  if (value == "-") return ReadStream(std::cin);
  if (!value.empty() && value[0] == '@') {
    std::ifstream file(value.substr(1));
    if (!file) {
      throw Failure(option + ": cannot read \"" + value.substr(1) + "\": " +
                        std::strerror(errno), 2);
    }
    return ReadStream(file);
  }
  return value;
}

Json ParseJson(const std::string& text, const std::string& what) {
  try {
    return Json::parse(text);
  } catch (const Json::exception& e) {  // parse_error, and out_of_range for 1e400
    throw Failure(what + " is not valid JSON: " + e.what(), 2);
  }
}

Value ReadValue(const Json& json, int32_t type, const std::string& context) {
  return Read(json, type, context, "");
}

Args ReadArguments(const tsb_schema_info* schema, const std::string& callee,
                            const Json& args, const Json& kwargs) {
  if (!args.is_array()) throw Failure("--args must be a JSON array", 2);
  if (!kwargs.is_object()) throw Failure("--kwargs must be a JSON object", 2);
  if (schema != nullptr && args.size() > schema->num_arguments) {
    throw Failure(callee + "() takes " + std::to_string(schema->num_arguments) +
                      " arguments, --args gives " + std::to_string(args.size()), 2);
  }
  Args call;
  // Each argument is parsed by its own schema type: type-directed JSON.
  for (size_t i = 0; i < args.size(); ++i) {
    int32_t type = TSB_TYPE_ANY;
    std::string name = std::to_string(i);
    if (schema != nullptr) {
      const tsb_argument_info* arg = tsb_schema_get_argument(schema, i);
      type = arg->type_index == TSB_TYPE_INVALID ? TSB_TYPE_ANY : arg->type_index;
      name = arg->name;
    }
    call.Add(ReadValue(args[i], type, callee + "(): argument '" + name + "'"));
  }
  for (const auto& [name, json] : kwargs.items()) {
    int32_t type = TSB_TYPE_ANY;
    for (size_t i = 0; schema != nullptr && i < schema->num_arguments; ++i) {
      const tsb_argument_info* arg = tsb_schema_get_argument(schema, i);
      if (name == arg->name && arg->type_index != TSB_TYPE_INVALID) type = arg->type_index;
    }
    call.Kw(name, ReadValue(json, type, callee + "(): argument '" + name + "'"));
  }
  return call;
}

}  // namespace tsb::cli
