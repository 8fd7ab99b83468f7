#include "hosts/serve/server.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <csignal>
#include <exception>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <thread>
#include <vector>

#include "hosts/serve/binary_data.h"
#include "hosts/serve/grpc_server.h"
#include "hosts/serve/http_server.h"
#include "hosts/serve/inference.h"
#include "hosts/serve/repository.h"
#include "hosts/serve/service.h"
#include "tsbridge/host/tsbridge.hpp"

namespace tsb::serve {

#ifndef TSB_SERVE_GRPC  // grpc_server.cc is not built: --grpc-port says so
std::unique_ptr<GrpcServer> StartGrpcServer(Service&, const std::string&, int, std::string& error) {
  error = "gRPC was not built: libgrpc++-dev, libprotobuf-dev, protobuf-compiler and "
          "protobuf-compiler-grpc were missing when it was configured (docs/serve.md)";
  return nullptr;
}
#endif

namespace {

using Clock = std::chrono::steady_clock;

void Reply(HttpExchange& exchange, int status, const Json& body) {
  exchange.status = status;
  exchange.content_type = "application/json";
  exchange.response = body.dump();
}

void ReplyError(HttpExchange& exchange, int status, const std::string& message) {
  Json body = Json::object();
  body["error"] = message;
  Reply(exchange, status, body);
}

// A path's segments after the leading '/' (a trailing '/' ends none).
std::vector<std::string_view> Segments(std::string_view path) {
  std::vector<std::string_view> segments;
  if (!path.empty() && path.front() == '/') path.remove_prefix(1);
  if (!path.empty() && path.back() == '/') path.remove_suffix(1);
  while (!path.empty()) {
    const size_t slash = path.find('/');
    segments.push_back(path.substr(0, slash));
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return segments;
}

// The HTTP/REST front end, and the gRPC one beside it when asked for.
class Server : public HttpHandler {
 public:
  // Loads the repository; throws std::runtime_error if a model does not load.
  explicit Server(const ServeOptions& options)
      : options_(options), service_(options), http_(HttpOptionsOf(options), *this) {}

  // Serves until Stop(); false if an address cannot be bound.
  bool Listen() {
    std::string error;
    const int port = http_.Listen(error);
    if (port < 0) {
      std::cerr << "tsb serve: " << error << "\n";
      return false;
    }
    if (!StartGrpc()) return false;
    // The REST line first: scripts read the first line for the HTTP port.
    std::cout << "tsb serve: listening on " << options_.address << ":" << port << " ("
              << service_.repository().All().size() << " model versions, " << options_.workers
              << " workers, queue " << options_.queue << ")" << std::endl;
    if (grpc_) {
      std::cout << "tsb serve: gRPC listening on " << options_.address << ":" << grpc_->port()
                << std::endl;
    }
    service_.set_ready(true);
    http_.Run();
    std::lock_guard<std::mutex> lock(grpc_mutex_);
    if (grpc_) grpc_->Stop();  // Stop() did already, unless REST ended on its own
    return true;
  }

  // Refuses new connections, lets the requests in flight finish.
  void Stop() {
    service_.set_ready(false);
    http_.Stop();
    std::lock_guard<std::mutex> lock(grpc_mutex_);
    if (grpc_) grpc_->Stop();
  }

  void Handle(HttpExchange& exchange) override {
    try {
      Route(exchange);
    } catch (const HttpError& e) {
      ReplyError(exchange, e.status, e.message);
    }
  }

  void Refuse(HttpExchange& exchange, int status, std::string_view why) override {
    if (status == 413) {
      ReplyError(exchange, 413, "the request body is larger than the limit (--max-body)");
    } else if (status == 431) {
      ReplyError(exchange, 431, "the request's headers are larger than the limit (" +
                                    std::to_string(kHttpHeaderLimit >> 10) + " KiB)");
    } else if (status == 500) {
      ReplyError(exchange, 500, "internal error: " + std::string(why));
    } else {
      ReplyError(exchange, status, "malformed HTTP request: " + std::string(why));
    }
  }

  // One line per request on standard error: time, client, request, status,
  // response bytes, milliseconds since it was read.
  void Sent(const HttpExchange& exchange) override {
    service_.metrics().CountHttp(exchange.status);
    std::string request;
    request.reserve(exchange.method.size() + 1 + exchange.path.size());
    request.append(exchange.method).append(" ").append(exchange.path);
    LogRequest(exchange.remote, request, std::to_string(exchange.status),
               exchange.response.size(), exchange.received);
  }

 private:
  static HttpOptions HttpOptionsOf(const ServeOptions& options) {
    HttpOptions http;
    http.address = options.address;
    http.port = options.port;
    // Enough connection threads for every worker and every queued request,
    // and a few to answer health checks, metrics and 503s meanwhile.
    http.threads = options.workers + options.queue + 4;
    http.max_body = options.max_body;
    http.timeout = std::chrono::seconds(options.keep_alive_s);
    return http;
  }

  // The gRPC front end when --grpc-port asks for it; false if it cannot start.
  bool StartGrpc() {
    if (options_.grpc_port < 0) return true;
    std::string error;
    auto grpc = StartGrpcServer(service_, options_.address, options_.grpc_port, error);
    if (!grpc) std::cerr << "tsb serve: " << error << "\n";
    std::lock_guard<std::mutex> lock(grpc_mutex_);
    grpc_ = std::move(grpc);
    return grpc_ != nullptr;
  }

  // The protocol's endpoints; 404 for any other.
  void Route(HttpExchange& x) {
    const std::vector<std::string_view> s = Segments(x.path);
    const size_t n = s.size();
    const bool get = x.method == "GET", post = x.method == "POST";
    if (get && n == 1 && s[0] == "metrics") {
      x.content_type = "text/plain; version=0.0.4";
      x.response = service_.RenderMetrics();
      return;
    }
    if (n >= 1 && s[0] == "v2") {
      if (get && n == 1) return ServerMetadata(x);
      if (get && n == 3 && s[1] == "health" && s[2] == "live") {
        return Reply(x, 200, Json{{"live", true}});
      }
      if (get && n == 3 && s[1] == "health" && s[2] == "ready") {
        return Reply(x, service_.ready() ? 200 : 503, Json{{"ready", service_.ready()}});
      }
      // models/NAME[/versions/VERSION][/ready|/infer]
      if (n >= 3 && s[1] == "models") {
        const std::string name(s[2]);
        std::string version;
        size_t rest = 3;
        if (n >= 5 && s[3] == "versions") {
          version = s[4];
          rest = 5;
        }
        if (get && n == rest) return ModelMetadataOf(x, name, version);
        if (get && n == rest + 1 && s[rest] == "ready") return ModelReady(x, name, version);
        if (post && n == rest + 1 && s[rest] == "infer") return Infer(x, name, version);
      }
      // The repository extension: the index, load and unload by name.
      if (post && n == 3 && s[1] == "repository" && s[2] == "index") {
        return Reply(x, 200, service_.repository().Index());
      }
      if (post && n == 5 && s[1] == "repository" && s[2] == "models" &&
          (s[4] == "load" || s[4] == "unload")) {
        return LoadOrUnload(x, std::string(s[3]), s[4] == "load");
      }
    }
    ReplyError(x, 404, "no such endpoint: " + std::string(x.method) + " " + std::string(x.path));
  }

  void ServerMetadata(HttpExchange& x) {
    Json body = Json::object();
    body["name"] = "tsbridge";
    body["version"] = tsb_version_get_string();
    body["extensions"] = Json::array({kJsonParameter, "binary_tensor_data", "model_repository"});
    Reply(x, 200, body);
  }

  void ModelMetadataOf(HttpExchange& x, const std::string& name, const std::string& version) {
    const ModelPtr m = service_.repository().Find(name, version);
    Reply(x, 200, ModelMetadata(*m, service_.repository().Versions(m->name)));
  }

  void ModelReady(HttpExchange& x, const std::string& name, const std::string& version) {
    const ModelPtr m = service_.repository().Find(name, version);
    Json body = Json::object();
    body["name"] = m->name;
    body["ready"] = service_.ready();
    Reply(x, service_.ready() ? 200 : 503, body);
  }

  void LoadOrUnload(HttpExchange& x, const std::string& name, bool load) {
    if (load) {
      service_.Load(name);
    } else {
      service_.Unload(name);
    }
    Json body = Json::object();
    body["name"] = name;
    body[load ? "load" : "unload"] = true;
    Reply(x, 200, body);
  }

  // The body split into its JSON, parsed, and the binary data after it.
  static InferRequest ReadBody(const std::string& body, std::string_view header_length) {
    const std::string_view whole = body;
    std::string_view json = whole, binary;
    if (!header_length.empty()) {  // the binary tensor data extension
      size_t n = 0;
      const auto [end, error] = std::from_chars(header_length.data(),
                                                header_length.data() + header_length.size(), n);
      if (error != std::errc() || end != header_length.data() + header_length.size() ||
          n > whole.size()) {
        throw HttpError{400, std::string(kHeaderLength) + ": expected the JSON's length in bytes "
                             "(at most the body's " + std::to_string(whole.size()) + "), got \"" +
                             std::string(header_length) + "\""};
      }
      json = whole.substr(0, n);
      binary = whole.substr(n);
    }
    return ReadRequest(json, binary);
  }

  // Runs the request by the service; Handle makes a failure the error body.
  void Infer(HttpExchange& x, const std::string& name, const std::string& version) {
    const std::string_view header_length = x.Header(kHeaderLength);
    Service::InferCall call;
    call.read = [&] { return ReadBody(x.body, header_length); };
    call.bytes = x.body.size();
    call.arrived = x.received.value_or(Clock::now());
    const InferResponse response = service_.Infer(name, version, call);
    x.status = 200;
    x.response = ResponseText(response);
    if (response.binary_data) {
      x.headers.emplace_back(kHeaderLength, std::to_string(x.response.size()));
      x.content_type = "application/octet-stream";
      x.response += response.binary;
    }
  }

  const ServeOptions options_;
  Service service_;
  HttpServer http_;
  std::mutex grpc_mutex_;  // Stop() may come from the signal thread as gRPC starts
  std::unique_ptr<GrpcServer> grpc_;
};

}  // namespace

int Serve(const ServeOptions& given) {
  ServeOptions options = given;
  if (options.workers == 0) options.workers = std::max(1u, std::thread::hardware_concurrency());
  std::signal(SIGPIPE, SIG_IGN);
  // SIGTERM and SIGINT wait for the thread below: blocked here, before any
  // other thread starts, so every thread inherits the mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  std::optional<Server> server;
  try {
    server.emplace(options);
  } catch (const std::exception& e) {
    std::cerr << "tsb serve: " << SayLoadLibrary(e.what(), "tsb serve --library {}") << "\n";
    return 1;
  }
  std::atomic<bool> finished{false};
  std::thread waiter([&] {
    int signal = 0;
    sigwait(&signals, &signal);
    if (finished) return;
    std::cerr << "tsb serve: " << (signal == SIGTERM ? "SIGTERM" : "SIGINT")
              << ": refusing new connections, finishing the requests in flight" << std::endl;
    server->Stop();
  });
  const bool served = server->Listen();
  finished = true;
  pthread_kill(waiter.native_handle(), SIGTERM);  // a no-op if it already woke
  waiter.join();
  if (served) std::cerr << "tsb serve: stopped" << std::endl;
  return served ? 0 : 1;
}

}  // namespace tsb::serve
