#include "hosts/serve/metrics.h"

#include <sstream>

namespace tsb::serve {
namespace {

// A label value escaped as the exposition format asks (\\, \", \n).
std::string Escape(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '\\' || c == '"') out += '\\';
    out += c == '\n' ? std::string("\\n") : std::string(1, c);
  }
  return out;
}

void Header(std::ostringstream& out, const char* name, const char* type, const char* help) {
  out << "# HELP " << name << " " << help << "\n# TYPE " << name << " " << type << "\n";
}

}  // namespace

void ModelStats::Observe(std::chrono::nanoseconds latency, bool error) {
  requests.fetch_add(1, std::memory_order_relaxed);
  if (error) errors.fetch_add(1, std::memory_order_relaxed);
  sum_ns.fetch_add(static_cast<uint64_t>(latency.count()), std::memory_order_relaxed);
  const double seconds = std::chrono::duration<double>(latency).count();
  for (size_t i = 0; i < kLatencyBuckets.size(); ++i) {
    if (seconds <= kLatencyBuckets[i]) {
      buckets[i].fetch_add(1, std::memory_order_relaxed);
      return;
    }
  }
}

ModelStats& Metrics::For(const std::string& model, const std::string& version) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& stats : models_) {
    if (stats->model == model && stats->version == version) return *stats;
  }
  models_.push_back(std::make_unique<ModelStats>());
  models_.back()->model = model;
  models_.back()->version = version;
  return *models_.back();
}

void Metrics::CountHttp(int status) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++http_[status];
}

void Metrics::CountGrpc(const std::string& code) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++grpc_[code];
}

std::string Metrics::Render(size_t running, size_t handles) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::ostringstream out;
  Header(out, "tsb_serve_http_requests_total", "counter", "HTTP requests answered, by status code.");
  for (const auto& [code, n] : http_) {
    out << "tsb_serve_http_requests_total{code=\"" << code << "\"} " << n << "\n";
  }
  Header(out, "tsb_serve_grpc_requests_total", "counter", "gRPC calls answered, by status code.");
  for (const auto& [code, n] : grpc_) {
    out << "tsb_serve_grpc_requests_total{code=\"" << code << "\"} " << n << "\n";
  }
  auto labels = [](const ModelStats& s) {
    return "model=\"" + Escape(s.model) + "\",version=\"" + Escape(s.version) + "\"";
  };
  Header(out, "tsb_serve_inference_requests_total", "counter",
         "Inference requests a model version answered (admitted to a worker).");
  for (const auto& s : models_) out << "tsb_serve_inference_requests_total{" << labels(*s) << "} " << s->requests << "\n";
  Header(out, "tsb_serve_inference_errors_total", "counter",
         "Inference requests a model version answered with an error.");
  for (const auto& s : models_) out << "tsb_serve_inference_errors_total{" << labels(*s) << "} " << s->errors << "\n";
  Header(out, "tsb_serve_inference_duration_seconds", "histogram",
         "Time from reading the request to its response body, the waits for a reader and a worker left out, per model version.");
  for (const auto& s : models_) {
    uint64_t cumulative = 0;
    for (size_t i = 0; i < kLatencyBuckets.size(); ++i) {
      cumulative += s->buckets[i];
      out << "tsb_serve_inference_duration_seconds_bucket{" << labels(*s) << ",le=\""
          << kLatencyBuckets[i] << "\"} " << cumulative << "\n";
    }
    out << "tsb_serve_inference_duration_seconds_bucket{" << labels(*s) << ",le=\"+Inf\"} "
        << s->requests << "\n";
    out << "tsb_serve_inference_duration_seconds_sum{" << labels(*s) << "} "
        << static_cast<double>(s->sum_ns) / 1e9 << "\n";
    out << "tsb_serve_inference_duration_seconds_count{" << labels(*s) << "} " << s->requests << "\n";
  }
  Header(out, "tsb_serve_queue_depth", "gauge", "Inference requests waiting for a worker, per model version.");
  for (const auto& s : models_) out << "tsb_serve_queue_depth{" << labels(*s) << "} " << s->waiting << "\n";
  Header(out, "tsb_serve_workers_busy", "gauge", "Workers running an inference call.");
  out << "tsb_serve_workers_busy " << running << "\n";
  Header(out, "tsb_serve_live_handles", "gauge", "tsbridge's live value handles (tsb_handle_count).");
  out << "tsb_serve_live_handles " << handles << "\n";
  return out.str();
}

}  // namespace tsb::serve
