#include "hosts/serve/inference.h"

#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "hosts/serve/binary_data.h"
#include "hosts/serve/request_json.h"
#include "hosts/serve/typed_json.h"
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
      if (s.size() > 40) {  // cut at a character's start: the text stays UTF-8
        size_t n = 40;
        while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
        s = s.substr(0, n) + "...";
      }
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

// An input's datatype and shape, checked against config.json's declaration.
struct TensorHead {
  std::string datatype;
  std::vector<int64_t> shape;
};

TensorHead ReadHead(const Json& input, const TensorSpec& spec, const std::string& where) {
  if (!input.contains("datatype") || !input["datatype"].is_string()) {
    Bad(Key(where, "datatype"), "expected a datatype string (or the value in parameters." +
                                    std::string(kJsonParameter) + ")");
  }
  TensorHead head{input["datatype"], {}};
  if (head.datatype == kJsonDatatype) {
    Bad(Key(where, "parameters"), std::string("datatype JSON carries its value in parameters.") +
                                      kJsonParameter + ", which is missing");
  }
  head.shape = ReadShape(input, where);
  if (spec.declared) {
    if (head.datatype != spec.datatype) {
      Bad(Key(where, "datatype"), "expected " + spec.datatype + ", got " + head.datatype);
    }
    bool fits = head.shape.size() == spec.shape.size();
    for (size_t i = 0; fits && i < head.shape.size(); ++i) {
      fits = spec.shape[i] == -1 || spec.shape[i] == head.shape[i];
    }
    if (!fits) {
      Bad(Key(where, "shape"), "expected " + ShapeText(spec.shape) + ", got " + ShapeText(head.shape));
    }
  }
  return head;
}

// tsbridge's dtype of a numeric datatype, where the argument takes a tensor.
std::string TensorDtype(const TensorHead& head, const TensorSpec& spec, const std::string& where) {
  const std::string dtype = DtypeOfDatatype(head.datatype);
  if (dtype.empty()) {
    Bad(Key(where, "datatype"), "unknown datatype \"" + head.datatype +
                                    "\" (BOOL, UINT8...UINT64, INT8...INT64, FP16, FP32, FP64, "
                                    "BF16, BYTES)");
  }
  const tsb_kind kind = KindOf(Unwrapped(spec.type));
  if (kind != TSB_KIND_TENSOR && kind != TSB_KIND_ANY && kind != TSB_KIND_UNION) {
    Bad(where, "input \"" + spec.name + "\" is " + spec.annotation +
                   ", not a tensor: send it as typed JSON in parameters." + kJsonParameter +
                   " (datatype " + kJsonDatatype + ")");
  }
  return dtype;
}

// ElementCount, or a 400 at `where` when it does not fit in 64 bits.
uint64_t Count(const std::vector<int64_t>& shape, const std::string& where, uint64_t element = 1) {
  const std::optional<uint64_t> count = ElementCount(shape, element);
  if (!count) {
    Bad(Key(where, "shape"), "shape " + ShapeText(shape) + " has more elements than fit in memory");
  }
  return *count;
}

// One input in the protocol's tensor form as the typed JSON tsb_json_read
// reads by the argument's type: a tensor object for a numeric datatype,
// strings for BYTES. `data` is the input's, or its binary BYTES as strings.
Json TensorInput(const Json& data, const TensorHead& head, const TensorSpec& spec,
                 const std::string& where) {
  Json flat = Json::array();
  Flatten(data, flat);
  if (head.datatype == "BYTES") {
    for (size_t i = 0; i < flat.size(); ++i) {
      if (!flat[i].is_string()) {
        Bad(JoinPath(Key(where, "data"), kit::IndexSegment(i)),
            "expected a string (BYTES), got " + Describe(flat[i]));
      }
    }
    const uint64_t count = Count(head.shape, where);
    if (flat.size() != count) {
      Bad(Key(where, "data"), "shape " + ShapeText(head.shape) + " needs " + std::to_string(count) +
                                  " elements, got " + Describe(flat));
    }
    if (KindOf(Unwrapped(spec.type)) == TSB_KIND_STR && count == 1) return flat[0];  // str
    if (head.shape.size() <= 1) return flat;
    size_t next = 0;
    return Nest(flat, head.shape, 0, next);
  }
  Json tensor = Json::object();
  tensor["dtype"] = TensorDtype(head, spec, where);
  tensor["shape"] = head.shape;
  tensor["data"] = std::move(flat);
  return tensor;
}

// The binary data after a request's JSON, taken input by input.
struct BinaryCursor {
  std::string_view bytes;
  size_t at = 0;

  std::string_view Take(const Json& size, const std::string& where) {
    if (!size.is_number_integer() || size.get<int64_t>() < 0) {
      Bad(where, "expected a size in bytes, got " + Describe(size));
    }
    const auto n = size.get<uint64_t>();
    if (n > bytes.size() - at) {
      Bad(where, std::to_string(n) + " bytes, but " + std::to_string(bytes.size() - at) +
                     " follow the JSON (" + kHeaderLength + ")");
    }
    at += n;
    return bytes.substr(at - n, n);
  }
};

// An input as typed JSON, where its errors are, and whether it was the
// protocol's numeric tensor (which Any reads as a Tensor, not as a Dict);
// or, sent as binary data, the tensor itself.
struct InputValue {
  Json json;
  std::string at;
  bool tensor = false;
  std::optional<Value> binary;
  const Json* given = nullptr;  // parameters.tsbridge_json, read where it is

  const Json& value() const { return given != nullptr ? *given : json; }
};

// The argument `spec` from input `i`.
InputValue ReadInput(const Json& input, const TensorSpec& spec, const std::string& where,
                     BinaryCursor& binary) {
  const Json* size = nullptr;
  if (input.contains("parameters")) {
    const Json& parameters = input["parameters"];
    if (!parameters.is_object()) {
      Bad(Key(where, "parameters"), "expected a JSON object, got " + Describe(parameters));
    }
    if (parameters.contains(kJsonParameter)) {
      return {Json(), Key(Key(where, "parameters"), kJsonParameter), false, std::nullopt,
              &parameters[kJsonParameter]};
    }
    if (parameters.contains("binary_data_size")) size = &parameters["binary_data_size"];
  }
  const TensorHead head = ReadHead(input, spec, where);
  if (size != nullptr) {
    const std::string at = Key(Key(where, "parameters"), "binary_data_size");
    if (input.contains("data")) {
      Bad(Key(where, "data"), "an input with binary_data_size has its data after the JSON");
    }
    const std::string_view bytes = binary.Take(*size, at);
    if (head.datatype == "BYTES") return {TensorInput(StringsFromBytes(bytes, at), head, spec, where), where};
    const std::string dtype = TensorDtype(head, spec, where);
    const uint64_t needed = Count(head.shape, where, ElementSize(dtype));
    if (needed != bytes.size()) {
      Bad(at, "shape " + ShapeText(head.shape) + " of " + head.datatype + " needs " +
                  std::to_string(needed) + " bytes, got " + std::to_string(bytes.size()));
    }
    return {Json(), where, true, TensorFromBytes(dtype, head.shape, bytes, at)};
  }
  if (!input.contains("data") || !input["data"].is_array()) {
    Bad(Key(where, "data"), "expected an array of the tensor's elements");
  }
  if (head.datatype != "BYTES") {  // the elements straight into a tensor, if they allow it
    std::optional<Value> tensor = TensorFromNumbers(TensorDtype(head, spec, where), head.shape,
                                                    input["data"]);
    if (tensor) return {Json(), where, true, std::move(tensor)};
  }
  Json json = TensorInput(input["data"], head, spec, where);
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

// A $response_output's head: its name, datatype and shape.
Json OutputHead(const std::string& name, std::string datatype, Json shape) {
  Json head = Json::object();
  head["name"] = name;
  head["datatype"] = std::move(datatype);
  head["shape"] = std::move(shape);
  return head;
}

// The protocol's $response_output for one result of `spec`'s type: a
// tensor of a datatype the protocol names as its tensor, a str or List[str]
// as BYTES, every other value as typed JSON text.
ResponseOutput OutputOf(const TensorSpec& spec, const tsb_any& value) {
  std::string text = WriteTypedJson(value);
  ResponseOutput out;
  const tsb_kind kind = KindOf(spec.type);
  const bool strs = kind == TSB_KIND_LIST && KindOf(TypeInfoOf(spec.type).contained[0]) == TSB_KIND_STR;
  if (kind == TSB_KIND_TENSOR || kind == TSB_KIND_STR || strs) {  // maybe the protocol's own form
    Json value_json = Json::parse(text);  // written by tsbridge: valid
    if (kind == TSB_KIND_TENSOR && value_json.is_object() && value_json.contains("dtype") &&
        !DatatypeOfDtype(value_json["dtype"].get<std::string>()).empty()) {
      out.head = OutputHead(spec.name, DatatypeOfDtype(value_json["dtype"].get<std::string>()),
                            std::move(value_json["shape"]));
      out.head["data"] = std::move(value_json["data"]);
      return out;
    }
    if ((kind == TSB_KIND_STR && value_json.is_string()) || (strs && value_json.is_array())) {
      out.head = OutputHead(spec.name, "BYTES",
                            Json::array({value_json.is_string() ? size_t{1} : value_json.size()}));
      out.head["data"] = value_json.is_string() ? Json::array({std::move(value_json)})
                                                : std::move(value_json);
      return out;
    }
  }
  // Every other kind, and a tensor the protocol has no datatype for.
  out.head = OutputHead(spec.name, kJsonDatatype, Json::array({0}));
  out.head["data"] = Json::array();
  out.typed_json = std::move(text);
  return out;
}

// One output of the result: its $response_output and its value.
struct ResultOutput {
  ResponseOutput out;
  Value value;
};

// The result's outputs; a tensor's numbers written only where `as_text`
// says some request entry wants them as JSON (not as binary data).
std::vector<ResultOutput> Outputs(const ModelVersion& model, Value result,
                                  const std::vector<bool>& as_text) {
  std::vector<Value> items;
  if (model.split_result) {  // a Tuple's or NamedTuple's items
    size_t n = 0;
    Check(tsb_any_len(&result.get(), &n));
    std::vector<tsb_any> raw(n);
    Check(tsb_list_get_items(&result.get(), n, raw.data()));
    for (tsb_any& item : raw) items.emplace_back(item);
  } else {
    items.push_back(std::move(result));
  }
  std::vector<ResultOutput> outputs;
  for (size_t i = 0; i < items.size() && i < model.outputs.size(); ++i) {
    const TensorSpec& spec = model.outputs[i];
    std::string dtype;
    std::vector<int64_t> shape;
    ResponseOutput out;
    if (KindOf(spec.type) == TSB_KIND_TENSOR &&
        (as_text[i] ? AppendNumbersOfTensor(items[i].get(), dtype, shape, out.data)  // as text
                    : TensorHeadOf(items[i].get(), dtype, shape))) {  // binary data, or not asked
      out.head = OutputHead(spec.name, DatatypeOfDtype(dtype), std::move(shape));
    } else {
      out = OutputOf(spec, items[i].get());
    }
    outputs.push_back({std::move(out), std::move(items[i])});
  }
  return outputs;
}

// `object` (an object's JSON text) with `key` (a name that needs no
// escaping) set to `raw` (JSON text) as its last member.
void AppendMember(std::string& object, const char* key, std::string_view raw) {
  object.pop_back();  // its closing brace
  if (object.size() > 1) object += ',';
  object += '"';
  object += key;
  object += "\":";
  object += raw;
  object += '}';
}

// A boolean parameter of `holder` (the request, one of its outputs).
bool BoolParameter(const Json& holder, const char* name, bool otherwise, const std::string& where) {
  if (!holder.contains("parameters") || !holder["parameters"].is_object() ||
      !holder["parameters"].contains(name)) {
    return otherwise;
  }
  const Json& value = holder["parameters"][name];
  if (!value.is_boolean()) {
    Bad(Key(Key(where, "parameters"), name), "expected true or false, got " + Describe(value));
  }
  return value.get<bool>();
}

// An output the response gives, and whether as binary data.
struct Chosen {
  size_t index;
  bool binary;
};

// The outputs the request names ("outputs": [{"name": ...}], in its order),
// else all; binary where its binary_data (or the request's
// binary_data_output) says so.
std::vector<Chosen> Requested(const ModelVersion& model, const Json& request) {
  const bool all_binary = BoolParameter(request, "binary_data_output", false, "");
  std::vector<Chosen> chosen;
  if (!request.contains("outputs")) {
    for (size_t i = 0; i < model.outputs.size(); ++i) chosen.push_back({i, all_binary});
    return chosen;
  }
  const Json& wanted = request["outputs"];
  if (!wanted.is_array()) Bad("key \"outputs\"", "expected a JSON array, got " + Describe(wanted));
  for (size_t i = 0; i < wanted.size(); ++i) {
    const std::string where = JoinPath("key \"outputs\"", kit::IndexSegment(i));
    if (!wanted[i].is_object() || !wanted[i].contains("name") || !wanted[i]["name"].is_string()) {
      Bad(where, "expected {\"name\": string}, got " + Describe(wanted[i]));
    }
    const std::string name = wanted[i]["name"];
    size_t index = 0;
    while (index < model.outputs.size() && model.outputs[index].name != name) ++index;
    if (index == model.outputs.size()) {
      std::string names;
      for (const TensorSpec& s : model.outputs) names += (names.empty() ? "" : ", ") + s.name;
      Bad(Key(where, "name"), "model \"" + model.name + "\" has no output \"" + name +
                                  "\" (outputs: " + names + ")");
    }
    chosen.push_back({index, BoolParameter(wanted[i], "binary_data", all_binary, where)});
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

InferRequest ReadRequest(std::string_view json, std::string_view binary) {
  InferRequest request{Json(), binary};
  try {
    request.body = ParseRequestJson(json);
  } catch (const Json::exception& e) {  // parse_error; out_of_range for 1e400
    Bad("", std::string("the request is not valid JSON: ") + e.what());
  }
  return request;
}

InferResponse Infer(const ModelVersion& model, std::string_view json, std::string_view binary) {
  return Infer(model, ReadRequest(json, binary));
}

InferResponse Infer(const ModelVersion& model, const InferRequest& parsed, const CallGate& gate) {
  const Json& request = parsed.body;
  const std::string_view binary = parsed.binary;
  CheckDepth(request);
  if (!request.is_object()) Bad("", "expected a JSON object, got " + Describe(request));
  if (!request.contains("inputs") || !request["inputs"].is_array()) {
    Bad("key \"inputs\"", "expected a JSON array of the inputs");
  }
  if (request.contains("id") && !request["id"].is_string()) {
    Bad("key \"id\"", "expected a string, got " + Describe(request["id"]));
  }
  const std::vector<Chosen> chosen = Requested(model, request);
  const Json& inputs = request["inputs"];
  kit::CallArguments call(0, inputs.size());
  std::vector<const TensorSpec*> given;
  BinaryCursor cursor{binary};
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string where = "inputs" + kit::IndexSegment(i);
    const TensorSpec& spec = InputOf(model, inputs[i], where);
    for (const TensorSpec* g : given) {
      if (g == &spec) Bad(Key(where, "name"), "input \"" + spec.name + "\" is given twice");
    }
    given.push_back(&spec);
    const InputValue value = ReadInput(inputs[i], spec, where, cursor);
    try {
      call.AddKeyword(model.plan, spec.name.c_str(), [&](const kit::PlannedArgument& a, tsb_any* out) {
        const bool any = KindOf(Unwrapped(a.type)) == TSB_KIND_ANY;
        const int32_t type = value.tensor && any ? TSB_TYPE_TENSOR : a.type;
        try {
          if (value.binary) {
            kit::CheckStatus(tsb_any_coerce(&value.binary->get(), type, out));
          } else {
            ReadTypedJson(value.value(), type, out);
          }
        } catch (const kit::ConvertError& e) {
          throw HttpError{400, e.Message(value.at)};
        }
      });
    } catch (const kit::ConvertError& e) {
      throw HttpError{400, e.Message(where)};
    }
  }
  if (cursor.at != binary.size()) {
    Bad("", std::to_string(binary.size()) + " bytes follow the JSON, and the inputs' "
            "binary_data_size take " + std::to_string(cursor.at));
  }
  for (const TensorSpec& spec : model.inputs) {
    bool present = spec.has_default;
    for (const TensorSpec* g : given) present = present || g == &spec;
    if (!present) Bad("key \"inputs\"", "missing input \"" + spec.name + "\" (" + spec.annotation + ")");
  }
  const tsb_call_args view = call.view();
  Value result;
  Status status;
  const auto run = [&] {
    // Inference: no autograd graph recorded (as torch.no_grad() in a Python
    // server) unless config.json asks for it. Grad mode is per thread; every
    // call sets it on its own thread.
    Status grad(tsb_grad_mode_set(model.grad_mode, nullptr));
    if (!grad.ok()) throw HttpError{500, grad.message()};
    status = Status(tsb_module_call_method(model.module.get(), model.method, &view, result.out()));
  };
  if (gate) {
    gate(run);
  } else {
    run();
  }
  if (!status.ok()) {
    const bool ours = status.code() == TSB_ERR_INTERNAL || status.code() == TSB_ERR_NO_MEMORY;
    throw HttpError{ours ? 500 : 400, status.message()};
  }
  std::vector<bool> as_text(model.outputs.size(), false);
  for (const Chosen& c : chosen) as_text[c.index] = as_text[c.index] || !c.binary;
  std::vector<ResultOutput> outputs = Outputs(model, std::move(result), as_text);
  InferResponse response;
  response.head = Json::object();
  response.head["model_name"] = model.name;
  response.head["model_version"] = model.version;
  if (request.contains("id")) response.head["id"] = request["id"];
  for (size_t k = 0; k < chosen.size(); ++k) {
    const Chosen& c = chosen[k];
    if (c.index >= outputs.size()) continue;
    // Moved where no later entry names the same output again (a copy of a
    // large output is as costly as writing it).
    bool again = false;
    for (size_t j = k + 1; j < chosen.size(); ++j) again = again || chosen[j].index == c.index;
    ResponseOutput out = again ? outputs[c.index].out : std::move(outputs[c.index].out);
    if (c.binary && out.head["datatype"] != kJsonDatatype) {  // typed JSON has no binary form
      const std::string bytes = out.head["datatype"] == "BYTES"
                                    ? BytesOfStrings(out.head["data"])
                                    : BytesOfTensor(outputs[c.index].value.get());
      out.head.erase("data");
      out.data.clear();
      out.head["parameters"]["binary_data_size"] = bytes.size();
      response.binary += bytes;
      response.binary_data = true;
    }
    response.outputs.push_back(std::move(out));
  }
  return response;
}

std::string ResponseText(const InferResponse& response) {
  std::string outputs = "[";
  for (const ResponseOutput& output : response.outputs) {
    if (outputs.size() > 1) outputs += ',';
    std::string text = output.head.dump();
    if (!output.data.empty()) AppendMember(text, "data", output.data);
    if (!output.typed_json.empty()) {
      AppendMember(text, "parameters",
                   std::string("{\"") + kJsonParameter + "\":" + output.typed_json + "}");
    }
    outputs += text;
  }
  outputs += ']';
  std::string text = response.head.dump();
  AppendMember(text, "outputs", outputs);
  return text;
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
