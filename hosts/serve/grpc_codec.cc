#include "hosts/serve/grpc_codec.h"

#include <utility>

#include "hosts/serve/request_json.h"
#include "tsbridge/host/kit.hpp"

namespace tsb::serve {
namespace {

using inference::InferParameter;
using inference::InferTensorContents;
using ParameterMap = google::protobuf::Map<std::string, InferParameter>;

[[noreturn]] void Bad(const std::string& where, const std::string& detail) {
  throw HttpError{400, where.empty() ? detail : where + ": " + detail};
}

std::string Key(const std::string& where, const std::string& key) {
  return JoinPath(where, kit::StrKeySegment(key));
}

// The protocol's parameters as JSON; "tsbridge_json"'s text parsed into
// the typed JSON it holds, as REST carries it.
Json ReadParameters(const ParameterMap& parameters, const std::string& where) {
  Json out = Json::object();
  for (const auto& [name, parameter] : parameters) {
    const std::string at = Key(Key(where, "parameters"), name);
    if (name == kJsonParameter) {
      if (parameter.parameter_choice_case() != InferParameter::kStringParam) {
        Bad(at, "expected string_param holding typed JSON text");
      }
      try {
        out[name] = ParseRequestJson(parameter.string_param());
      } catch (const Json::exception& e) {
        Bad(at, std::string("the string_param is not valid JSON: ") + e.what());
      }
      continue;
    }
    switch (parameter.parameter_choice_case()) {
      case InferParameter::kBoolParam: out[name] = parameter.bool_param(); break;
      case InferParameter::kInt64Param: out[name] = parameter.int64_param(); break;
      case InferParameter::kStringParam: out[name] = parameter.string_param(); break;
      case InferParameter::kDoubleParam: out[name] = parameter.double_param(); break;
      case InferParameter::kUint64Param: out[name] = parameter.uint64_param(); break;
      default: out[name] = nullptr; break;
    }
  }
  return out;
}

template <typename Field>
Json ArrayOf(const Field& field) {
  Json out = Json::array();
  for (const auto& item : field) out.push_back(item);
  return out;
}

// The field of InferTensorContents a datatype's elements travel in.
struct ContentsField {
  const char* name;
  int size;
};

std::vector<ContentsField> FieldsOf(const InferTensorContents& c) {
  return {{"bool_contents", c.bool_contents_size()},     {"int_contents", c.int_contents_size()},
          {"int64_contents", c.int64_contents_size()},   {"uint_contents", c.uint_contents_size()},
          {"uint64_contents", c.uint64_contents_size()}, {"fp32_contents", c.fp32_contents_size()},
          {"fp64_contents", c.fp64_contents_size()},     {"bytes_contents", c.bytes_contents_size()}};
}

// The field a datatype's typed contents travel in; empty for one that has
// none (FP16, BF16: raw contents only) or that the protocol does not name.
std::string FieldOf(const std::string& datatype) {
  if (datatype == "BOOL") return "bool_contents";
  if (datatype == "INT8" || datatype == "INT16" || datatype == "INT32") return "int_contents";
  if (datatype == "INT64") return "int64_contents";
  if (datatype == "UINT8" || datatype == "UINT16" || datatype == "UINT32") return "uint_contents";
  if (datatype == "UINT64") return "uint64_contents";
  if (datatype == "FP32") return "fp32_contents";
  if (datatype == "FP64") return "fp64_contents";
  if (datatype == "BYTES") return "bytes_contents";
  return "";
}

// BYTES elements as JSON strings: a str is UTF-8, which JSON text checks.
Json StringsOf(const InferTensorContents& c, const std::string& at) {
  Json data = Json::array();
  for (int i = 0; i < c.bytes_contents_size(); ++i) {
    Json text = c.bytes_contents(i);
    try {
      (void)text.dump();
    } catch (const Json::exception&) {
      Bad(JoinPath(Key(at, "bytes_contents"), kit::IndexSegment(i)), "expected UTF-8 text (a str)");
    }
    data.push_back(std::move(text));
  }
  return data;
}

// The typed contents of `datatype` as the protocol's flat `data`.
Json DataOf(const InferTensorContents& c, const std::string& datatype, const std::string& where) {
  const std::string at = Key(where, "contents");
  const std::string field = FieldOf(datatype);
  for (const ContentsField& f : FieldsOf(c)) {
    if (f.size == 0 || f.name == field) continue;
    Bad(Key(at, f.name), field.empty() ? "datatype " + datatype + " has no typed contents: send "
                                             "raw_input_contents"
                                       : "datatype " + datatype + " takes its elements in " + field);
  }
  if (field == "bool_contents") return ArrayOf(c.bool_contents());
  if (field == "int_contents") return ArrayOf(c.int_contents());
  if (field == "int64_contents") return ArrayOf(c.int64_contents());
  if (field == "uint_contents") return ArrayOf(c.uint_contents());
  if (field == "uint64_contents") return ArrayOf(c.uint64_contents());
  if (field == "fp32_contents") return ArrayOf(c.fp32_contents());
  if (field == "fp64_contents") return ArrayOf(c.fp64_contents());
  if (field == "bytes_contents") return StringsOf(c, at);
  return Json::array();  // no elements: the datatype's own check says what is wrong
}

}  // namespace

InferRequest ReadGrpcRequest(const inference::ModelInferRequest& in, std::string& binary) {
  Json body = Json::object();
  if (!in.id().empty()) body["id"] = in.id();
  body["parameters"] = ReadParameters(in.parameters(), "");
  // Every output as binary data: the response's raw_output_contents.
  body["parameters"]["binary_data_output"] = true;
  const bool raw = in.raw_input_contents_size() > 0;
  if (raw && in.raw_input_contents_size() != in.inputs_size()) {
    Bad("key \"raw_input_contents\"", "expected one entry per input (" +
                                          std::to_string(in.inputs_size()) + "), got " +
                                          std::to_string(in.raw_input_contents_size()));
  }
  body["inputs"] = Json::array();
  binary.clear();
  for (int i = 0; i < in.inputs_size(); ++i) {
    const auto& input = in.inputs(i);
    const std::string where = "inputs" + kit::IndexSegment(i);
    Json j = Json::object();
    j["name"] = input.name();
    j["datatype"] = input.datatype();
    j["shape"] = ArrayOf(input.shape());
    j["parameters"] = ReadParameters(input.parameters(), where);
    if (!j["parameters"].contains(kJsonParameter)) {
      if (raw) {
        if (input.has_contents()) {
          Bad(Key(where, "contents"), "a request with raw_input_contents has no typed contents");
        }
        j["parameters"]["binary_data_size"] = in.raw_input_contents(i).size();
        binary += in.raw_input_contents(i);
      } else {
        j["data"] = DataOf(input.contents(), input.datatype(), where);
      }
    }
    body["inputs"].push_back(std::move(j));
  }
  if (in.outputs_size() > 0) {
    body["outputs"] = Json::array();
    for (const auto& output : in.outputs()) body["outputs"].push_back(Json{{"name", output.name()}});
  }
  return InferRequest{std::move(body), binary};
}

void WriteGrpcResponse(const InferResponse& response, inference::ModelInferResponse& out) {
  const Json& head = response.head;
  out.set_model_name(head["model_name"].get<std::string>());
  out.set_model_version(head["model_version"].get<std::string>());
  if (head.contains("id")) out.set_id(head["id"].get<std::string>());
  size_t at = 0;
  for (const ResponseOutput& output : response.outputs) {
    const Json& json = output.head;
    auto* o = out.add_outputs();
    o->set_name(json["name"].get<std::string>());
    o->set_datatype(json["datatype"].get<std::string>());
    for (const Json& d : json["shape"]) o->add_shape(d.get<int64_t>());
    std::string* raw = out.add_raw_output_contents();
    if (!output.typed_json.empty()) {
      (*o->mutable_parameters())[kJsonParameter].set_string_param(output.typed_json);
    }
    if (json.contains("parameters") && json["parameters"].contains("binary_data_size")) {
      const auto size = json["parameters"]["binary_data_size"].get<size_t>();
      raw->assign(response.binary, at, size);
      at += size;
    }
  }
}

void WriteGrpcMetadata(const Json& metadata, inference::ModelMetadataResponse& out) {
  out.set_name(metadata["name"].get<std::string>());
  for (const Json& v : metadata["versions"]) out.add_versions(v.get<std::string>());
  out.set_platform(metadata["platform"].get<std::string>());
  auto write = [](const Json& spec, inference::ModelMetadataResponse::TensorMetadata* t) {
    t->set_name(spec["name"].get<std::string>());
    t->set_datatype(spec["datatype"].get<std::string>());
    for (const Json& d : spec["shape"]) t->add_shape(d.get<int64_t>());
  };
  for (const Json& spec : metadata["inputs"]) write(spec, out.add_inputs());
  for (const Json& spec : metadata["outputs"]) write(spec, out.add_outputs());
}

}  // namespace tsb::serve
