// An inference request of the Open Inference Protocol read into a call of a
// model's forward, and its result written as the protocol's response
// (docs/serve.md): tensors as the protocol's tensors, str and List[str] as
// BYTES, every other kind as tsbridge's typed JSON (docs/json.md) in the
// `tsbridge_json` parameter, each converted by the schema's type.
#ifndef TSBRIDGE_HOSTS_SERVE_INFERENCE_H_
#define TSBRIDGE_HOSTS_SERVE_INFERENCE_H_

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "hosts/serve/repository.h"

namespace tsb::serve {

// The parameter a typed JSON value travels in, and the datatype that says so.
inline constexpr const char* kJsonParameter = "tsbridge_json";
inline constexpr const char* kJsonDatatype = "JSON";

// One output of a response: the protocol's $response_output, except that a
// tensor's numbers and an output of datatype JSON are kept as the JSON text
// they were written as, which the wire carries as it is (REST: as "data",
// as parameters.tsbridge_json's value; gRPC: the JSON as its string
// parameter): a value is never built as a JSON document only to be written.
struct ResponseOutput {
  Json head;
  std::string data;        // a tensor's numbers ("[1.5,2.0]"), else empty: in head
  std::string typed_json;  // empty unless datatype JSON
};

// A response: model_name, model_version and id in `head`, the outputs, and
// the binary data that follows the JSON when some output is sent so (the
// binary tensor data extension, binary_data.h).
struct InferResponse {
  Json head;
  std::vector<ResponseOutput> outputs;
  std::string binary;
  bool binary_data = false;
};

// REST's $inference_response: `response` as JSON text.
std::string ResponseText(const InferResponse& response);

// An inference request whatever wire brought it, the one form REST and gRPC
// share: the protocol's $inference_request as JSON, and the bytes its
// inputs with parameters.binary_data_size take, in their order (REST's
// binary tensor data extension, gRPC's raw_input_contents).
struct InferRequest {
  Json body;
  std::string_view binary;
};

// Runs `model` on a request and gives the response. A request that
// cannot be called is an HttpError (400) whose message says where, in the
// one path syntax: `inputs[2] → key "parameters" → key "tsbridge_json" →
// key "b": expected int, got JSON string "x"`; a call that fails is one too
// (400, or 500 for tsbridge's own internal errors). `gate`, when given,
// runs the model's call (only the call: the inputs are converted before it,
// the outputs after) and may throw instead (the service's admission).
using CallGate = std::function<void(const std::function<void()>& call)>;
InferResponse Infer(const ModelVersion& model, const InferRequest& request,
                    const CallGate& gate = nullptr);
// REST's body as a request: `json`, then the inputs' binary data (empty
// without any); JSON that does not parse is a 400.
InferRequest ReadRequest(std::string_view json, std::string_view binary);
// Infer(model, ReadRequest(json, binary)).
InferResponse Infer(const ModelVersion& model, std::string_view json, std::string_view binary);

// The $metadata_model_response of a model (all its versions listed).
Json ModelMetadata(const ModelVersion& model, const std::vector<std::string>& versions);

}  // namespace tsb::serve

#endif  // TSBRIDGE_HOSTS_SERVE_INFERENCE_H_
