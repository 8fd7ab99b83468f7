// What tsb serve's two front ends share (docs/serve.md): the repository,
// the admission of inference calls, the metrics, readiness and the log
// line. REST (server.cc) and gRPC (grpc_server.cc) each read their wire into
// an InferRequest and write the InferResponse back; the conversion of
// inputs and outputs is inference.cc's alone.
#ifndef TSBRIDGE_HOSTS_SERVE_SERVICE_H_
#define TSBRIDGE_HOSTS_SERVE_SERVICE_H_

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "hosts/serve/admission.h"
#include "hosts/serve/inference.h"
#include "hosts/serve/metrics.h"
#include "hosts/serve/repository.h"
#include "hosts/serve/request_json.h"
#include "hosts/serve/server.h"

namespace tsb::serve {

// The largest request read and converted before it waits for a worker: the
// texts a connection thread's own simdjson parser takes (request_json.h),
// so that what waits holds at most about this much times 15 a thread.
inline constexpr size_t kReadBeforeAdmission = kThreadParserBytes;

class Service {
 public:
  using Clock = std::chrono::steady_clock;

  // Loads the repository; throws std::runtime_error if a model does not load.
  explicit Service(const ServeOptions& options);

  // An inference request as a front end hands it over.
  struct InferCall {
    // The front end's reading of its wire; its errors count as the model's.
    std::function<InferRequest()> read;
    size_t bytes = 0;  // the request's size on the wire
    Clock::time_point arrived = Clock::now();
    std::optional<Clock::time_point> client_deadline;
    // Run once a worker is free, right before the call; may throw (gRPC: a
    // call its client cancelled while it waited is not run for nobody).
    std::function<void()> admitted;
  };

  // Runs NAME at VERSION (empty: the highest) on `call`. A request of at
  // most kReadBeforeAdmission bytes is read and converted first and only its
  // call waits for a worker; a larger one is read by the worker, so that at
  // most --workers large parses run at once. The wait lasts until
  // --deadline-ms after `arrived`, or the client's deadline if sooner.
  // Throws HttpError: 404 for an unknown model, 503 when the queue is full,
  // 504 past the deadline, and the reading's and the call's own (400, 500),
  // which the model's metrics count.
  InferResponse Infer(const std::string& name, const std::string& version, const InferCall& call);

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
  // Requests of at most kReadBeforeAdmission bytes read and converted at
  // once: as many as the workers, in the order they came (service.cc).
  Admission readers_;
  Metrics metrics_;
  std::atomic<bool> ready_{false};
};

// Writes one request's log line on standard error, in one write so lines
// do not interleave: time, client, request, status, response bytes, and
// milliseconds since `since` ("-" without it).
void LogRequest(std::string_view client, std::string_view request, std::string_view status,
                size_t bytes, std::optional<Service::Clock::time_point> since);

}  // namespace tsb::serve

#endif  // TSBRIDGE_HOSTS_SERVE_SERVICE_H_
