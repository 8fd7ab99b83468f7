// What tsb serve's two front ends share (docs/serve.md): the repository,
// the admission of inference calls, the metrics, readiness and the log
// line. REST (server.cc) and gRPC (grpc_server.cc) each read their wire into
// an InferRequest and write the InferResponse back; the conversion of
// inputs and outputs is inference.cc's alone.
#ifndef TSBRIDGE_HOSTS_SERVE_SERVICE_H_
#define TSBRIDGE_HOSTS_SERVE_SERVICE_H_

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "hosts/serve/admission.h"
#include "hosts/serve/inference.h"
#include "hosts/serve/metrics.h"
#include "hosts/serve/repository.h"
#include "hosts/serve/server.h"

namespace tsb::serve {

class Service {
 public:
  using Clock = std::chrono::steady_clock;

  // Loads the repository; throws std::runtime_error if a model does not load.
  explicit Service(const ServeOptions& options);

  // Runs NAME at VERSION (empty: the highest) on the request `read` gives
  // (a front end's reading of its wire, run once a worker is free, so that
  // its errors count as the model's), `arrived` when the request came:
  // waits for a worker until --deadline-ms after it, or `client_deadline`
  // if sooner. Throws HttpError: 404 for an unknown model, 503 when the
  // queue is full, 504 past the deadline, and the reading's and the call's
  // own (400, 500), which the model's metrics count.
  InferResponse Infer(const std::string& name, const std::string& version,
                      const std::function<InferRequest()>& read, Clock::time_point arrived,
                      std::optional<Clock::time_point> client_deadline = std::nullopt);

  // The repository extension, with the metrics of a model loaded.
  void Load(const std::string& name);
  void Unload(const std::string& name);

  const ServeOptions& options() const { return options_; }
  Repository& repository() { return repository_; }
  Metrics& metrics() { return metrics_; }
  std::string RenderMetrics() const;
  bool ready() const { return ready_; }
  void set_ready(bool ready) { ready_ = ready; }

 private:
  const ServeOptions options_;
  Repository repository_;
  Admission admission_;
  Metrics metrics_;
  std::atomic<bool> ready_{false};
};

// Writes one request's log line on standard error, in one write so lines
// do not interleave: time, client, request, status, response bytes, and
// milliseconds since `since` ("-" without it).
void LogRequest(const std::string& client, const std::string& request, const std::string& status,
                size_t bytes, std::optional<Service::Clock::time_point> since);

}  // namespace tsb::serve

#endif  // TSBRIDGE_HOSTS_SERVE_SERVICE_H_
