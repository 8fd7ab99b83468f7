// tsb serve's gRPC API (grpc_predict_v2.proto, docs/serve.md "gRPC"): the
// Open Inference Protocol's GRPCInferenceService and Triton's repository
// RPCs, served by the same Service as REST in the same process. An
// HttpError's status becomes the gRPC code: 400 INVALID_ARGUMENT, 404
// NOT_FOUND, 503 UNAVAILABLE, 504 DEADLINE_EXCEEDED, 500 INTERNAL; the
// message is the same, with its path.
#ifndef TSBRIDGE_HOSTS_SERVE_GRPC_SERVER_H_
#define TSBRIDGE_HOSTS_SERVE_GRPC_SERVER_H_

#include <memory>
#include <string>

#include "hosts/serve/service.h"

namespace tsb::serve {

class GrpcServer {
 public:
  virtual ~GrpcServer() = default;
  virtual int port() const = 0;
  // Refuses new calls and returns when the calls in flight have finished.
  virtual void Stop() = 0;
};

// Serves `service` on address:port (0: any free port) on gRPC's own
// threads; null, and `error` says why, if it cannot listen or gRPC was not
// built (server.cc then defines it so).
std::unique_ptr<GrpcServer> StartGrpcServer(Service& service, const std::string& address, int port,
                                            std::string& error);

}  // namespace tsb::serve

#endif  // TSBRIDGE_HOSTS_SERVE_GRPC_SERVER_H_
