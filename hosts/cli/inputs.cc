#include "hosts/cli/inputs.h"

#include "tsbridge/host/kit.hpp"

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

// A failed status as a failure of the value being read: the kit puts the
// value's path in front of `context: <message>`.
void CheckRead(tsb_status* status, const std::string& context) {
  if (status == nullptr) return;
  Status owned(status);
  kit::Fail(owned.code(), context + ": " + owned.message());
}

[[noreturn]] void CannotRead(const std::string& path) {
  kit::Fail(TSB_ERR_INVALID_ARGUMENT, "cannot read \"" + path + "\": " + std::strerror(errno));
}

// A value torch.save wrote (a tensor, or any value), by the pickle reader.
Value LoadSaved(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) CannotRead(path);
  std::string bytes(std::istreambuf_iterator<char>(file), {});
  Value value;
  CheckRead(tsb_pickle_read(bytes.data(), bytes.size(), value.out()),
            "\"" + path + "\" is not a file torch.save wrote");
  return value;
}

Value CallOp(const char* op, std::vector<tsb_any> args, const std::string& context) {
  tsb_call_args call = tsb_call_args_make(args.data(), args.size());
  Value out;
  CheckRead(tsb_op_call(op, &call, out.out()), context);
  return out;
}

// An image file as a CHW RGB tensor: float32 in [0, 1] as torchvision's
// models take it (convert_image_dtype), or uint8 as decoded.
Value LoadImage(const Json& form) {
  std::string path = form["image"].get<std::string>();
  std::string dtype = form.value("dtype", "float32");
  if (dtype != "float32" && dtype != "uint8") {
    kit::Fail(TSB_ERR_INVALID_ARGUMENT,
              "an image's \"dtype\" is \"float32\" or \"uint8\", got \"" + dtype + "\"");
  }
  size_t overloads = 0;
  if (tsb_status* status = tsb_op_count_overloads("image::decode_image", &overloads)) {
    tsb_status_free(status);
    kit::Fail(TSB_ERR_NOT_FOUND,
              "{\"image\": ...} is decoded by torchvision's image operators, "
              "which are not loaded: add --library torchvision");
  }
  if (!std::ifstream(path).good()) CannotRead(path);
  Value data = CallOp("image::read_file", {tsb_any_borrowed_str(path.c_str())}, "image::read_file");
  constexpr int64_t kRgb = 3;  // torchvision.io.ImageReadMode.RGB
  Value image = CallOp("image::decode_image", {data.get(), tsb_any_int(kRgb)},
                       "cannot decode \"" + path + "\"");
  if (dtype == "uint8") return image;
  return CallOp("aten::div", {image.get(), tsb_any_int(255)}, "aten::div");
}

// The command line as a host of the kit (tsbridge/host/kit.hpp): a JSON
// value is built by the type asked for; a part without file forms is read
// whole by tsb_json_read (docs/json.md), a file form is loaded where it
// stands, its failures named by the kit's path like any other.
class JsonHost {
 public:
  using In = const Json&;
  using Entry = kit::TypeInfo;
  using Guard = kit::NestingGuard;
  using Context = kit::BuildContext;
  struct CachedEntry : kit::TypeInfo {
    void Complete() {}
  };

  const Entry& Type(int32_t index) { return Types().Get(index); }

  // A value of `type`: whole when nothing in it needs building.
  void Read(const Json& json, int32_t type, tsb_any* out) {
    Context context;
    Read(json, type, context, out);
  }
  void Read(const Json& json, int32_t type, Context& context, tsb_any* out) {
    const bool untyped = type == TSB_TYPE_ANY;
    if (!NeedsBuilding(json, untyped)) {
      kit::CheckStatus(tsb_json_read(json.dump().c_str(), type, out));
      return;
    }
    kit::Build(*this, context, json, type, out);
  }

  void Leaf(const Json& json, int32_t expected, Context& context, tsb_any* out) {
    if (IsFileForm(json)) {
      Value value = json.contains("file") ? LoadSaved(json["file"].get<std::string>())
                                          : LoadImage(json);
      if (expected == TSB_TYPE_ANY || value.type_index() == expected) {
        *out = value.release();
      } else {
        kit::CheckStatus(tsb_any_coerce(&value.get(), expected, out));
      }
      return;
    }
    if (expected == TSB_TYPE_ANY && IsTensorObject(json)) {
      return Read(json, TSB_TYPE_TENSOR, context, out);
    }
    if (expected == TSB_TYPE_ANY) return Untyped(json, context, out);
    Read(json, expected, context, out);
  }
  void Untyped(const Json& json, Context& context, tsb_any* out) {
    if (IsFileForm(json) || !(json.is_array() || json.is_object())) {
      return Leaf(json, TSB_TYPE_ANY, context, out);
    }
    if (json.is_array()) {
      BuildList(json, TSB_TYPE_ANY, context, out);
    } else {
      BuildDict(json, TSB_TYPE_STR, TSB_TYPE_ANY, context, out);
    }
  }
  bool IsNone(const Json& json) { return json.is_null(); }
  bool List(const Json& json, const Entry& type, Context& context, tsb_any* out) {
    if (!json.is_array()) return false;
    BuildList(json, type.contained[0], context, out);
    return true;
  }
  bool Tuple(const Json& json, const Entry& type, Context& context, tsb_any* out) {
    if (!json.is_array()) return false;
    kit::TupleBuilder<Entry> tuple(context, &type, json.size());
    for (size_t i = 0; i < json.size(); ++i) {
      tuple.Item(i, [&](tsb_any* item) { Read(json[i], tuple.element(i), context, item); });
    }
    tuple.Finish(out);
    return true;
  }
  bool Dict(const Json& json, const Entry& type, Context& context, tsb_any* out) {
    if (!json.is_object() || IsFileForm(json)) return false;
    BuildDict(json, type.contained[0], type.contained[1], context, out);
    return true;
  }
  bool Enum(const Json&, const Entry&, tsb_any*) { return false; }  // read whole
  [[noreturn]] void Mismatch(const Json& json, int32_t expected) {
    kit::Fail(TSB_ERR_TYPE, "expected " + kit::Annotation(expected) + ", got JSON " +
                                std::string(json.type_name()));
  }

 private:
  static kit::TypeCache<CachedEntry>& Types() {
    static auto& types = *new kit::TypeCache<CachedEntry>;
    return types;
  }
  void BuildList(const Json& json, int32_t element, Context& context, tsb_any* out) {
    kit::ListBuilder list(context, element, json.size());
    for (size_t i = 0; i < json.size(); ++i) {
      list.Item(i, [&](tsb_any* item) { Read(json[i], element, context, item); });
    }
    list.Finish(out);
  }
  void BuildDict(const Json& json, int32_t key_type, int32_t value_type, Context& context,
                 tsb_any* out) {
    kit::DictBuilder dict(context, key_type, value_type, json.size());
    size_t i = 0;
    for (const auto& entry : json.items()) {
      // Named, not structured bindings: clang before 16 cannot capture those.
      const std::string& key = entry.key();
      const Json& item = entry.value();
      dict.Entry(
          i++, [&] { return kit::StrKeySegment(key); },
          [&](tsb_any* k) { Read(Json(key), key_type, context, k); },
          [&](tsb_any* v) { Read(item, value_type, context, v); });
    }
    dict.Finish(out);
  }
};

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

void ReadArguments(const kit::CallPlan& plan, const Json& args, const Json& kwargs,
                   kit::CallArguments& call) {
  if (!args.is_array()) throw Failure("--args must be a JSON array", 2);
  if (!kwargs.is_object()) throw Failure("--kwargs must be a JSON object", 2);
  // Each argument read by the type its plan gives: type-directed JSON (a
  // lone number where a schema says int[2] is read as an int).
  auto read = [](const Json& json) {
    return [&json](const kit::PlannedArgument& a, tsb_any* out) {
      JsonHost host;
      host.Read(json, a.TypeFor(json.is_number() || json.is_boolean()), out);
    };
  };
  try {
    for (size_t i = 0; i < args.size(); ++i) call.AddPositional(plan, read(args[i]));
    for (const auto& [name, json] : kwargs.items()) call.AddKeyword(plan, name.c_str(), read(json));
  } catch (const kit::ConvertError& e) {
    throw Failure(e.Message());
  }
}

}  // namespace tsb::cli
