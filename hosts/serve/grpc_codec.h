// The gRPC API's messages (grpc_predict_v2.proto) as the request and
// response REST also has (inference.h), and back: nothing here converts a
// value. An input's typed contents become the protocol's `data`, its raw
// contents binary data (as REST's binary tensor data extension), its
// string parameter "tsbridge_json" the typed JSON it holds; every output
// goes back in raw_output_contents, as Triton's server answers, and a
// typed JSON output as the text of its string parameter "tsbridge_json".
#ifndef TSBRIDGE_HOSTS_SERVE_GRPC_CODEC_H_
#define TSBRIDGE_HOSTS_SERVE_GRPC_CODEC_H_

#include <string>

#include "hosts/serve/grpc_predict_v2.pb.h"
#include "hosts/serve/inference.h"

namespace tsb::serve {

// `in` as the protocol's request; the binary data it views is kept in
// `binary`. A message that is not a request (contents in the wrong field,
// raw contents not one per input, typed JSON that does not parse) is a 400
// HttpError whose message says where: `inputs[0] → key "contents": ...`.
InferRequest ReadGrpcRequest(const inference::ModelInferRequest& in, std::string& binary);

// A response of a request ReadGrpcRequest read, as the message.
void WriteGrpcResponse(const InferResponse& response, inference::ModelInferResponse& out);

// A model's metadata (ModelMetadata's JSON) as the message.
void WriteGrpcMetadata(const Json& metadata, inference::ModelMetadataResponse& out);

}  // namespace tsb::serve

#endif  // TSBRIDGE_HOSTS_SERVE_GRPC_CODEC_H_
