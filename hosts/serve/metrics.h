// What /metrics shows, in Prometheus's text exposition format: requests by
// HTTP status and gRPC calls by code, and per model version its inference requests, errors, a
// latency histogram and its queue depth (docs/serve.md lists each metric).
// Counters are atomics: updating them takes no lock on the request path.
#ifndef TSBRIDGE_HOSTS_SERVE_METRICS_H_
#define TSBRIDGE_HOSTS_SERVE_METRICS_H_

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace tsb::serve {

// The latency histogram's upper bounds, in seconds.
inline constexpr std::array<double, 14> kLatencyBuckets = {
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};

struct ModelStats {
  std::string model, version;
  std::atomic<uint64_t> requests{0}, errors{0};
  std::array<std::atomic<uint64_t>, kLatencyBuckets.size()> buckets{};  // not cumulative
  std::atomic<uint64_t> sum_ns{0};
  std::atomic<int64_t> waiting{0};  // the queue depth: requests waiting for a worker

  void Observe(std::chrono::nanoseconds latency, bool error);
};

class Metrics {
 public:
  // The stats of one model version, made the first time it is asked for
  // (a model loaded later gets its own); kept for the process.
  ModelStats& For(const std::string& model, const std::string& version);
  void CountHttp(int status);
  void CountGrpc(const std::string& code);  // "OK", "NOT_FOUND", ...
  // The exposition text; `running` workers busy, `handles` tsbridge's live handles.
  std::string Render(size_t running, size_t handles) const;

 private:
  mutable std::mutex mutex_;  // models_ (not the stats in them), http_, grpc_
  std::vector<std::unique_ptr<ModelStats>> models_;
  std::map<int, uint64_t> http_;
  std::map<std::string, uint64_t> grpc_;
};

}  // namespace tsb::serve

#endif  // TSBRIDGE_HOSTS_SERVE_METRICS_H_
