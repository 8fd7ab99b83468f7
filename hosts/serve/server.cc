#include "hosts/serve/server.h"

#include <httplib.h>
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <csignal>
#include <exception>
#include <iostream>
#include <memory>
#include <optional>
#include <thread>

#include "hosts/serve/binary_data.h"
#include "hosts/serve/grpc_server.h"
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

// When the request this thread answers was routed (for its log line); a
// request refused before routing (413) has none.
thread_local std::optional<Clock::time_point> routed_at;

void Reply(httplib::Response& res, int status, const Json& body) {
  res.status = status;
  res.set_content(body.dump(), "application/json");
}

void ReplyError(httplib::Response& res, int status, const std::string& message) {
  Json body = Json::object();
  body["error"] = message;
  Reply(res, status, body);
}

// The HTTP/REST front end, and the gRPC one beside it when asked for.
class Server {
 public:
  // Loads the repository; throws std::runtime_error if a model does not load.
  explicit Server(const ServeOptions& options) : options_(options), service_(options) {}

  // Serves until Stop(); false if an address cannot be bound.
  bool Listen() {
    Configure();
    const int port = options_.port == 0 ? http_.bind_to_any_port(options_.address)
                                        : (http_.bind_to_port(options_.address, options_.port)
                                               ? options_.port : -1);
    if (port < 0) {
      std::cerr << "tsb serve: cannot listen on " << options_.address << ":" << options_.port << "\n";
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
    const bool served = http_.listen_after_bind();
    if (grpc_) grpc_->Stop();  // Stop() did already, unless REST ended on its own
    return served;
  }

  // Refuses new connections, lets the requests in flight finish.
  void Stop() {
    service_.set_ready(false);
    // A signal that came as listening began: wait for it to run (5 s at most).
    for (int i = 0; i < 5000 && !http_.is_running(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    http_.stop();
    // Ordered after is_running(): grpc_ was set before listening began.
    if (grpc_) grpc_->Stop();
  }

 private:
  // The gRPC front end when --grpc-port asks for it; false if it cannot start.
  bool StartGrpc() {
    if (options_.grpc_port < 0) return true;
    std::string error;
    grpc_ = StartGrpcServer(service_, options_.address, options_.grpc_port, error);
    if (!grpc_) std::cerr << "tsb serve: " << error << "\n";
    return grpc_ != nullptr;
  }

  void Configure() {
    // Enough connection threads for every worker and every queued request,
    // and a few to answer health checks, metrics and 503s meanwhile.
    const size_t threads = options_.workers + options_.queue + 4;
    http_.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
    http_.set_payload_max_length(options_.max_body);
    http_.set_keep_alive_timeout(options_.keep_alive_s);
    http_.set_keep_alive_max_count(100000);
    // cpp-httplib writes the headers and the body in two sends: with Nagle's
    // algorithm on, the body waits for the client's delayed ACK (~40 ms a
    // response on a kept-alive connection; docs/benchmarks.md).
    http_.set_tcp_nodelay(true);
    http_.set_pre_routing_handler([](const httplib::Request&, httplib::Response&) {
      routed_at = Clock::now();
      return httplib::Server::HandlerResponse::Unhandled;
    });
    http_.set_logger([this](const httplib::Request& req, const httplib::Response& res) { Log(req, res); });
    http_.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
      if (!res.body.empty()) return;
      const int status = res.status;
      if (status == 404) {
        ReplyError(res, 404, "no such endpoint: " + req.method + " " + req.path);
      } else if (status == 413) {
        ReplyError(res, 413, "the request body is larger than the limit (--max-body)");
      } else {
        ReplyError(res, status, "HTTP error " + std::to_string(status));
      }
    });
    http_.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr e) {
      std::string what = "unknown exception";
      try {
        std::rethrow_exception(e);
      } catch (const std::exception& x) {
        what = x.what();
      } catch (...) {
      }
      ReplyError(res, 500, "internal error: " + what);
    });

    http_.Get(R"(/v2/?)", [this](const httplib::Request&, httplib::Response& res) {
      Json body = Json::object();
      body["name"] = "tsbridge";
      body["version"] = tsb_version_get_string();
      body["extensions"] = Json::array({kJsonParameter, "binary_tensor_data", "model_repository"});
      Reply(res, 200, body);
    });
    http_.Get("/v2/health/live", [](const httplib::Request&, httplib::Response& res) {
      Reply(res, 200, Json{{"live", true}});
    });
    http_.Get("/v2/health/ready", [this](const httplib::Request&, httplib::Response& res) {
      Reply(res, service_.ready() ? 200 : 503, Json{{"ready", service_.ready()}});
    });
    const std::string model = R"(/v2/models/([^/]+)(?:/versions/([^/]+))?)";
    http_.Get(model + "/?", [this](const httplib::Request& req, httplib::Response& res) {
      Answer(res, [&] {
        const ModelPtr m = service_.repository().Find(req.matches[1], req.matches[2]);
        Reply(res, 200, ModelMetadata(*m, service_.repository().Versions(m->name)));
      });
    });
    http_.Get(model + "/ready", [this](const httplib::Request& req, httplib::Response& res) {
      Answer(res, [&] {
        const ModelPtr m = service_.repository().Find(req.matches[1], req.matches[2]);
        Json body = Json::object();
        body["name"] = m->name;
        body["ready"] = service_.ready();
        Reply(res, service_.ready() ? 200 : 503, body);
      });
    });
    http_.Post(model + "/infer", [this](const httplib::Request& req, httplib::Response& res) {
      Answer(res, [&] {
        HandleInfer(req.matches[1], req.matches[2], req.body,
                    req.get_header_value(kHeaderLength), res);
      });
    });
    // The repository extension: the index, load and unload by name.
    http_.Post("/v2/repository/index", [this](const httplib::Request&, httplib::Response& res) {
      Reply(res, 200, service_.repository().Index());
    });
    http_.Post(R"(/v2/repository/models/([^/]+)/(load|unload))",
               [this](const httplib::Request& req, httplib::Response& res) {
                 Answer(res, [&] {
                   const std::string name = req.matches[1], action = req.matches[2];
                   if (action == "load") {
                     service_.Load(name);
                   } else {
                     service_.Unload(name);
                   }
                   Json body = Json::object();
                   body["name"] = name;
                   body[action] = true;
                   Reply(res, 200, body);
                 });
               });
    http_.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
      res.set_content(service_.RenderMetrics(), "text/plain; version=0.0.4");
    });
  }

  // Runs body; an HttpError or any other failure becomes the protocol's
  // error body, so no request ends the server.
  template <typename Body>
  static void Answer(httplib::Response& res, Body&& body) {
    try {
      body();
    } catch (const HttpError& e) {
      ReplyError(res, e.status, e.message);
    } catch (const std::exception& e) {
      ReplyError(res, 500, std::string("internal error: ") + e.what());
    }
  }

  // The body split into its JSON, parsed, and the binary data after it.
  static InferRequest ReadBody(const std::string& body, const std::string& header_length) {
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
                             header_length + "\""};
      }
      json = whole.substr(0, n);
      binary = whole.substr(n);
    }
    return ReadRequest(json, binary);
  }

  // Runs the request by the service; Answer makes a failure the error body.
  void HandleInfer(const std::string& name, const std::string& version, const std::string& body,
                   const std::string& header_length, httplib::Response& res) {
    Service::InferCall call;
    call.read = [&] { return ReadBody(body, header_length); };
    call.bytes = body.size();
    call.arrived = routed_at.value_or(Clock::now());
    const InferResponse response = service_.Infer(name, version, call);
    const std::string text = ResponseText(response);
    res.status = 200;
    if (response.binary_data) {
      res.set_header(kHeaderLength, std::to_string(text.size()));
      res.set_content(text + response.binary, "application/octet-stream");
    } else {
      res.set_content(text, "application/json");
    }
  }

  // One line per request on standard error: time, client, request, status,
  // response bytes, milliseconds since it was routed.
  void Log(const httplib::Request& req, const httplib::Response& res) {
    service_.metrics().CountHttp(res.status);
    LogRequest(req.remote_addr, req.method + " " + req.path, std::to_string(res.status),
               res.body.size(), routed_at);
    routed_at.reset();
  }

  const ServeOptions options_;
  Service service_;
  httplib::Server http_;
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
