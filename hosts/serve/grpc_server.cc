#include "hosts/serve/grpc_server.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <exception>
#include <mutex>

#include "hosts/serve/grpc_codec.h"
#include "hosts/serve/grpc_predict_v2.grpc.pb.h"
#include "tsbridge/host/tsbridge.hpp"

namespace tsb::serve {
namespace {

using Clock = Service::Clock;

grpc::StatusCode CodeOf(int http_status) {
  switch (http_status) {
    case 400: return grpc::StatusCode::INVALID_ARGUMENT;
    case 404: return grpc::StatusCode::NOT_FOUND;
    case 413: return grpc::StatusCode::RESOURCE_EXHAUSTED;
    case 499: return grpc::StatusCode::CANCELLED;  // nginx's "client closed request"
    case 503: return grpc::StatusCode::UNAVAILABLE;
    case 504: return grpc::StatusCode::DEADLINE_EXCEEDED;
    default: return grpc::StatusCode::INTERNAL;
  }
}

// The code's name as gRPC's documentation spells it (the log line, /metrics).
std::string CodeName(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK: return "OK";
    case grpc::StatusCode::INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case grpc::StatusCode::NOT_FOUND: return "NOT_FOUND";
    case grpc::StatusCode::RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::CANCELLED: return "CANCELLED";
    case grpc::StatusCode::UNAVAILABLE: return "UNAVAILABLE";
    case grpc::StatusCode::DEADLINE_EXCEEDED: return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::INTERNAL: return "INTERNAL";
    default: return std::to_string(static_cast<int>(code));
  }
}

// The client's deadline on the steady clock; none when it set none.
std::optional<Clock::time_point> ClientDeadline(const grpc::ServerContext& context) {
  const auto left = context.deadline() - std::chrono::system_clock::now();
  if (left > std::chrono::hours(24 * 365)) return std::nullopt;  // gRPC's "infinite"
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(left);
}

class InferenceService final : public inference::GRPCInferenceService::Service {
 public:
  explicit InferenceService(serve::Service& service) : service_(service) {}

  grpc::Status ServerLive(grpc::ServerContext* c, const inference::ServerLiveRequest*,
                          inference::ServerLiveResponse* out) override {
    return Answer(c, "ServerLive", *out, [&] { out->set_live(true); });
  }
  grpc::Status ServerReady(grpc::ServerContext* c, const inference::ServerReadyRequest*,
                           inference::ServerReadyResponse* out) override {
    return Answer(c, "ServerReady", *out, [&] { out->set_ready(service_.ready()); });
  }
  grpc::Status ModelReady(grpc::ServerContext* c, const inference::ModelReadyRequest* in,
                          inference::ModelReadyResponse* out) override {
    return Answer(c, "ModelReady " + in->name(), *out, [&] {
      service_.repository().Find(in->name(), in->version());  // 404 if not served
      out->set_ready(service_.ready());
    });
  }
  grpc::Status ServerMetadata(grpc::ServerContext* c, const inference::ServerMetadataRequest*,
                              inference::ServerMetadataResponse* out) override {
    return Answer(c, "ServerMetadata", *out, [&] {
      out->set_name("tsbridge");
      out->set_version(tsb_version_get_string());
      out->add_extensions(kJsonParameter);
      out->add_extensions("model_repository");
    });
  }
  grpc::Status ModelMetadata(grpc::ServerContext* c, const inference::ModelMetadataRequest* in,
                             inference::ModelMetadataResponse* out) override {
    return Answer(c, "ModelMetadata " + in->name(), *out, [&] {
      const ModelPtr m = service_.repository().Find(in->name(), in->version());
      WriteGrpcMetadata(serve::ModelMetadata(*m, service_.repository().Versions(m->name)), *out);
    });
  }
  grpc::Status ModelInfer(grpc::ServerContext* c, const inference::ModelInferRequest* in,
                          inference::ModelInferResponse* out) override {
    const Clock::time_point arrived = Clock::now();
    return Answer(c, "ModelInfer " + in->model_name(), *out, [&] {
      std::string binary;  // the raw contents the request views
      serve::Service::InferCall call;
      call.read = [&] { return ReadGrpcRequest(*in, binary); };
      call.bytes = in->ByteSizeLong();
      call.arrived = arrived;
      call.client_deadline = ClientDeadline(*c);
      // A call its client cancelled while it waited is not run for nobody.
      call.admitted = [&] {
        if (c->IsCancelled()) throw HttpError{499, "the client cancelled the call while it waited"};
      };
      const InferResponse response = service_.Infer(in->model_name(), in->model_version(), call);
      WriteGrpcResponse(response, *out);
    });
  }
  grpc::Status RepositoryIndex(grpc::ServerContext* c, const inference::RepositoryIndexRequest* in,
                               inference::RepositoryIndexResponse* out) override {
    return Answer(c, "RepositoryIndex", *out, [&] {
      for (const Json& entry : service_.repository().Index()) {
        const std::string state = entry.value("state", "");
        if (in->ready() && state != "READY") continue;
        auto* m = out->add_models();
        m->set_name(entry.value("name", ""));
        m->set_version(entry.value("version", ""));
        m->set_state(state);
        m->set_reason(entry.value("reason", ""));
      }
    });
  }
  grpc::Status RepositoryModelLoad(grpc::ServerContext* c,
                                   const inference::RepositoryModelLoadRequest* in,
                                   inference::RepositoryModelLoadResponse* out) override {
    return Answer(c, "RepositoryModelLoad " + in->model_name(), *out,
                  [&] { service_.Load(in->model_name()); });
  }
  grpc::Status RepositoryModelUnload(grpc::ServerContext* c,
                                     const inference::RepositoryModelUnloadRequest* in,
                                     inference::RepositoryModelUnloadResponse* out) override {
    return Answer(c, "RepositoryModelUnload " + in->model_name(), *out,
                  [&] { service_.Unload(in->model_name()); });
  }

 private:
  // Runs body; an HttpError or any other failure becomes the call's status,
  // so no call ends the server. Each call is counted and logged as REST's.
  template <typename Message, typename Body>
  grpc::Status Answer(grpc::ServerContext* context, const std::string& what, const Message& out,
                      Body&& body) {
    const Clock::time_point start = Clock::now();
    grpc::Status status;
    try {
      body();
    } catch (const HttpError& e) {
      status = grpc::Status(CodeOf(e.status), e.message);
    } catch (const std::exception& e) {
      status = grpc::Status(grpc::StatusCode::INTERNAL, std::string("internal error: ") + e.what());
    }
    const std::string code = CodeName(status.error_code());
    service_.metrics().CountGrpc(code);
    LogRequest(context->peer(), "gRPC " + what, code, status.ok() ? out.ByteSizeLong() : 0, start);
    return status;
  }

  serve::Service& service_;
};

class RunningGrpcServer final : public GrpcServer {
 public:
  explicit RunningGrpcServer(serve::Service& service) : impl_(service) {}

  bool Start(const std::string& address, int port, const ServeOptions& options) {
    grpc::ServerBuilder builder;
    // An IPv6 address ("::") takes brackets before its port.
    const std::string host = address.find(':') == std::string::npos ? address : "[" + address + "]";
    builder.AddListeningPort(host + ":" + std::to_string(port), grpc::InsecureServerCredentials(),
                             &port_);
    // gRPC shares a port with another process by default (SO_REUSEPORT): a
    // port in use must fail as REST's does.
    builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
    builder.RegisterService(&impl_);
    builder.SetMaxReceiveMessageSize(static_cast<int>(std::min<size_t>(options.max_body, INT32_MAX)));
    // As REST's thread pool: every worker and queued request, and a few
    // threads for health checks and refusals meanwhile.
    grpc::ResourceQuota quota("tsb serve");
    quota.SetMaxThreads(static_cast<int>(options.workers + options.queue + 4));
    builder.SetResourceQuota(quota);
    server_ = builder.BuildAndStart();
    return server_ != nullptr && port_ != 0;
  }
  int port() const override { return port_; }
  void Stop() override {
    std::lock_guard<std::mutex> lock(stopping_);  // a second Stop waits for the first
    if (server_) server_->Shutdown();
  }

 private:
  InferenceService impl_;
  int port_ = 0;
  std::unique_ptr<grpc::Server> server_;
  std::mutex stopping_;
};

}  // namespace

std::unique_ptr<GrpcServer> StartGrpcServer(Service& service, const std::string& address, int port,
                                            std::string& error) {
  auto server = std::make_unique<RunningGrpcServer>(service);
  if (!server->Start(address, port, service.options())) {
    error = "cannot listen on " + address + ":" + std::to_string(port) + " (gRPC)";
    return nullptr;
  }
  return server;
}

}  // namespace tsb::serve
