#include "hosts/serve/inference.h"

#include <utility>
#include <vector>

#include "tsbridge/host/kit.hpp"

namespace tsb::serve {
namespace {

// The deepest JSON a request may nest: tsbridge reads no deeper (docs/json.md).
constexpr size_t kMaxDepth = 512;

[[noreturn]] void Bad(const std::string& where, const std::string& detail) {
  throw HttpError{400, where.empty() ? detail : where + ": " + detail};
}

std::string Key(const std::string& where, const std::string& key) {
  return JoinPath(where, kit::StrKeySegment(key));
}

// A JSON value in tsbridge's words (docs/json.md, "Errors").
std::string Describe(const Json& json) {
  switch (json.type()) {
    case Json::value_t::null: return "JSON null";
    case Json::value_t::boolean: return json.get<bool>() ? "JSON true" : "JSON false";
    case Json::value_t::string: {
      std::string s = json.get<std::string>();
      if (s.size() > 40) s = s.substr(0, 40) + "...";
      return "JSON string " + Json(s).dump();
    }
    case Json::value_t::array:
      return "JSON array of " + std::to_string(json.size()) +
             (json.size() == 1 ? " element" : " elements");
    case Json::value_t::object:
      return "JSON object with " + std::to_string(json.size()) + (json.size() == 1 ? " key" : " keys");
    default: return "JSON number " + json.dump();
  }
}

// Refuses a document nested deeper than kMaxDepth, without recursion: what
// reads it afterwards (dump, the flattening below) recurses.
void CheckDepth(const Json& root) {
  std::vector<std::pair<const Json*, size_t>> stack{{&root, 1}};
  while (!stack.empty()) {
    auto [json, depth] = stack.back();
    stack.pop_back();
    if (!json->is_structured()) continue;
    if (depth > kMaxDepth) Bad("", "the request nests deeper than 512 levels");
    for (const Json& item : *json) stack.emplace_back(&item, depth + 1);
  }
}

// The protocol's tensor data, row-major and possibly nested, made flat.
void Flatten(const Json& data, Json& flat) {
  for (const Json& item : data) {
    if (item.is_array()) {
      Flatten(item, flat);
    } else {
      flat.push_back(item);
    }
  }
}

// Flat items nested by `shape` (BYTES of rank 2 and more, as List[List[str]]).
Json Nest(const Json& flat, const std::vector<int64_t>& shape, size_t dim, size_t& next) {
  Json out = Json::array();
  for (int64_t i = 0; i < shape[dim]; ++i) {
    out.push_back(dim + 1 == shape.size() ? flat[next++] : Nest(flat, shape, dim + 1, next));
  }
  return out;
}

std::vector<int64_t> ReadShape(const Json& input, const std::string& where) {
  if (!input.contains("shape")) Bad(where, "missing key \"shape\"");
  const Json& shape = input["shape"];
  const std::string at = Key(where, "shape");
  if (!shape.is_array()) Bad(at, "expected an array of integers, got " + Describe(shape));
  std::vector<int64_t> dims;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (!shape[i].is_number_integer() || shape[i].get<int64_t>() < 0) {
      Bad(JoinPath(at, kit::IndexSegment(i)), "expected a dimension (an integer, 0 or more), got " +
                                                   Describe(shape[i]));
    }
    dims.push_back(shape[i].get<int64_t>());
  }
  return dims;
}

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

// One input in the protocol's tensor form as the typed JSON tsb_json_read
// reads by the argument's type: a tensor object for a numeric datatype,
// strings for BYTES.
Json TensorInput(const Json& input, const TensorSpec& spec, const std::string& where) {
  if (!input.contains("datatype") || !input["datatype"].is_string()) {
    Bad(Key(where, "datatype"), "expected a datatype string (or the value in parameters." +
                                    std::string(kJsonParameter) + ")");
  }
  const std::string datatype = input["datatype"];
  if (datatype == kJsonDatatype) {
    Bad(Key(where, "parameters"), std::string("datatype JSON carries its value in parameters.") +
                                      kJsonParameter + ", which is missing");
  }
  const std::vector<int64_t> shape = ReadShape(input, where);
  if (!input.contains("data") || !input["data"].is_array()) {
    Bad(Key(where, "data"), "expected an array of the tensor's elements");
  }
  if (spec.declared) {
    if (datatype != spec.datatype) {
      Bad(Key(where, "datatype"), "expected " + spec.datatype + ", got " + datatype);
    }
    bool fits = shape.size() == spec.shape.size();
    for (size_t i = 0; fits && i < shape.size(); ++i) {
      fits = spec.shape[i] == -1 || spec.shape[i] == shape[i];
    }
    if (!fits) {
      Bad(Key(where, "shape"), "expected " + ShapeText(spec.shape) + ", got " + ShapeText(shape));
    }
  }
  Json flat = Json::array();
  Flatten(input["data"], flat);
  const tsb_kind kind = KindOf(Unwrapped(spec.type));
  if (datatype == "BYTES") {
    for (size_t i = 0; i < flat.size(); ++i) {
      if (!flat[i].is_string()) {
        Bad(JoinPath(Key(where, "data"), kit::IndexSegment(i)),
            "expected a string (BYTES), got " + Describe(flat[i]));
      }
    }
    int64_t count = 1;
    for (int64_t d : shape) count *= d;
    if (static_cast<int64_t>(flat.size()) != count) {
      Bad(Key(where, "data"), "shape " + ShapeText(shape) + " needs " + std::to_string(count) +
                                  " elements, got " + Describe(flat));
    }
    if (kind == TSB_KIND_STR && count == 1) return flat[0];  // str: one element
    if (shape.size() <= 1) return flat;
    size_t next = 0;
    return Nest(flat, shape, 0, next);
  }
  const std::string dtype = DtypeOfDatatype(datatype);
  if (dtype.empty()) {
    Bad(Key(where, "datatype"), "unknown datatype \"" + datatype +
                                    "\" (BOOL, UINT8...UINT64, INT8...INT64, FP16, FP32, FP64, "
                                    "BF16, BYTES)");
  }
  if (kind != TSB_KIND_TENSOR && kind != TSB_KIND_ANY && kind != TSB_KIND_UNION) {
    Bad(where, "input \"" + spec.name + "\" is " + spec.annotation +
                   ", not a tensor: send it as typed JSON in parameters." + kJsonParameter +
                   " (datatype " + kJsonDatatype + ")");
  }
  Json tensor = Json::object();
  tensor["dtype"] = dtype;
  tensor["shape"] = shape;
  tensor["data"] = std::move(flat);
  return tensor;
}

// An input as typed JSON, where its errors are, and whether it was the
// protocol's numeric tensor (which Any reads as a Tensor, not as a Dict).
struct InputValue {
  Json json;
  std::string at;
  bool tensor = false;
};

// The argument `spec` from input `i`.
InputValue ReadInput(const Json& input, const TensorSpec& spec, const std::string& where) {
  if (input.contains("parameters")) {
    const Json& parameters = input["parameters"];
    if (!parameters.is_object()) {
      Bad(Key(where, "parameters"), "expected a JSON object, got " + Describe(parameters));
    }
    if (parameters.contains(kJsonParameter)) {
      return {parameters[kJsonParameter], Key(Key(where, "parameters"), kJsonParameter)};
    }
  }
  Json json = TensorInput(input, spec, where);
  const bool tensor = json.is_object();  // BYTES give strings
  return {std::move(json), where, tensor};
}

const TensorSpec& InputOf(const ModelVersion& model, const Json& input, const std::string& where) {
  if (!input.is_object()) Bad(where, "expected a JSON object, got " + Describe(input));
  if (!input.contains("name") || !input["name"].is_string()) {
    Bad(Key(where, "name"), "expected the input's name (a string)");
  }
  const std::string name = input["name"];
  if (const TensorSpec* spec = model.FindInput(name)) return *spec;
  std::string names;
  for (const TensorSpec& s : model.inputs) names += (names.empty() ? "" : ", ") + s.name;
  Bad(Key(where, "name"), "model \"" + model.name + "\" has no input \"" + name +
                              "\" (inputs: " + names + ")");
}

// The protocol's $response_output for one result of `spec`'s type.
Json OutputOf(const TensorSpec& spec, Json value) {
  Json out = Json::object();
  out["name"] = spec.name;
  const tsb_kind kind = KindOf(spec.type);
  if (kind == TSB_KIND_TENSOR && value.is_object() && value.contains("dtype") &&
      !DatatypeOfDtype(value["dtype"].get<std::string>()).empty()) {
    out["datatype"] = DatatypeOfDtype(value["dtype"].get<std::string>());
    out["shape"] = std::move(value["shape"]);
    out["data"] = std::move(value["data"]);
    return out;
  }
  const bool strs = value.is_array() && kind == TSB_KIND_LIST &&
                    KindOf(TypeInfoOf(spec.type).contained[0]) == TSB_KIND_STR;
  if ((kind == TSB_KIND_STR && value.is_string()) || strs) {
    out["datatype"] = "BYTES";
    out["shape"] = Json::array({value.is_string() ? size_t{1} : value.size()});
    out["data"] = value.is_string() ? Json::array({std::move(value)}) : std::move(value);
    return out;
  }
  // Every other kind, and a tensor the protocol has no datatype for.
  out["datatype"] = kJsonDatatype;
  out["shape"] = Json::array({0});
  out["data"] = Json::array();
  out["parameters"] = Json::object();
  out["parameters"][kJsonParameter] = std::move(value);
  return out;
}

Json Outputs(const ModelVersion& model, const tsb_any& result) {
  char* text = nullptr;
  if (tsb_status* status = tsb_json_write(&result, &text)) {
    Status owned(status);
    throw HttpError{500, "cannot write the result as JSON: " + owned.message()};
  }
  Json json = Json::parse(text);  // written by tsbridge: valid
  tsb_string_free(text);
  Json outputs = Json::array();
  if (!model.split_result) {
    outputs.push_back(OutputOf(model.outputs[0], std::move(json)));
    return outputs;
  }
  size_t i = 0;
  for (auto& item : json) {  // a Tuple's array, a NamedTuple's object
    if (i < model.outputs.size()) outputs.push_back(OutputOf(model.outputs[i++], std::move(item)));
  }
  return outputs;
}

// Only the outputs the request names ("outputs": [{"name": ...}]), in its order.
Json Requested(const ModelVersion& model, const Json& request, Json outputs) {
  if (!request.contains("outputs")) return outputs;
  const Json& wanted = request["outputs"];
  if (!wanted.is_array()) Bad("key \"outputs\"", "expected a JSON array, got " + Describe(wanted));
  Json chosen = Json::array();
  for (size_t i = 0; i < wanted.size(); ++i) {
    const std::string where = JoinPath("key \"outputs\"", kit::IndexSegment(i));
    if (!wanted[i].is_object() || !wanted[i].contains("name") || !wanted[i]["name"].is_string()) {
      Bad(where, "expected {\"name\": string}, got " + Describe(wanted[i]));
    }
    const std::string name = wanted[i]["name"];
    bool found = false;
    for (Json& output : outputs) {
      if (output["name"] == name) {
        chosen.push_back(output);
        found = true;
      }
    }
    if (!found) {
      std::string names;
      for (const TensorSpec& s : model.outputs) names += (names.empty() ? "" : ", ") + s.name;
      Bad(Key(where, "name"), "model \"" + model.name + "\" has no output \"" + name +
                                  "\" (outputs: " + names + ")");
    }
  }
  return chosen;
}

Json SpecJson(const TensorSpec& spec, bool input) {
  Json out = {{"name", spec.name}, {"datatype", spec.datatype}, {"shape", spec.shape}};
  out["parameters"] = {{"tsbridge_type", spec.annotation}};
  if (input && spec.has_default) out["parameters"]["optional"] = true;
  return out;
}

}  // namespace

Json Infer(const ModelVersion& model, const std::string& body) {
  Json request;
  try {
    request = Json::parse(body);
  } catch (const Json::exception& e) {  // parse_error; out_of_range for 1e400
    Bad("", std::string("the request is not valid JSON: ") + e.what());
  }
  CheckDepth(request);
  if (!request.is_object()) Bad("", "expected a JSON object, got " + Describe(request));
  if (!request.contains("inputs") || !request["inputs"].is_array()) {
    Bad("key \"inputs\"", "expected a JSON array of the inputs");
  }
  if (request.contains("id") && !request["id"].is_string()) {
    Bad("key \"id\"", "expected a string, got " + Describe(request["id"]));
  }
  const Json& inputs = request["inputs"];
  kit::CallArguments call(0, inputs.size());
  std::vector<const TensorSpec*> given;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string where = "inputs" + kit::IndexSegment(i);
    const TensorSpec& spec = InputOf(model, inputs[i], where);
    for (const TensorSpec* g : given) {
      if (g == &spec) Bad(Key(where, "name"), "input \"" + spec.name + "\" is given twice");
    }
    given.push_back(&spec);
    const InputValue value = ReadInput(inputs[i], spec, where);
    const std::string text = value.json.dump();
    try {
      call.AddKeyword(model.plan, spec.name.c_str(), [&](const kit::PlannedArgument& a, tsb_any* out) {
        try {
          const bool any = KindOf(Unwrapped(a.type)) == TSB_KIND_ANY;
          kit::CheckStatus(tsb_json_read(text.c_str(), value.tensor && any ? TSB_TYPE_TENSOR : a.type, out));
        } catch (const kit::ConvertError& e) {
          throw HttpError{400, e.Message(value.at)};
        }
      });
    } catch (const kit::ConvertError& e) {
      throw HttpError{400, e.Message(where)};
    }
  }
  for (const TensorSpec& spec : model.inputs) {
    bool present = spec.has_default;
    for (const TensorSpec* g : given) present = present || g == &spec;
    if (!present) Bad("key \"inputs\"", "missing input \"" + spec.name + "\" (" + spec.annotation + ")");
  }
  const tsb_call_args view = call.view();
  Value result;
  Status status(tsb_module_call_method(model.module.get(), model.method, &view, result.out()));
  if (!status.ok()) {
    const bool ours = status.code() == TSB_ERR_INTERNAL || status.code() == TSB_ERR_NO_MEMORY;
    throw HttpError{ours ? 500 : 400, status.message()};
  }
  Json response = Json::object();
  response["model_name"] = model.name;
  response["model_version"] = model.version;
  if (request.contains("id")) response["id"] = request["id"];
  response["outputs"] = Requested(model, request, Outputs(model, result.get()));
  return response;
}

Json ModelMetadata(const ModelVersion& model, const std::vector<std::string>& versions) {
  Json out = Json::object();
  out["name"] = model.name;
  out["versions"] = versions;
  out["platform"] = model.platform;
  out["inputs"] = Json::array();
  for (const TensorSpec& spec : model.inputs) out["inputs"].push_back(SpecJson(spec, true));
  out["outputs"] = Json::array();
  for (const TensorSpec& spec : model.outputs) out["outputs"].push_back(SpecJson(spec, false));
  return out;
}

}  // namespace tsb::serve
