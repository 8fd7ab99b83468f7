#include "hosts/serve/service.h"

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <exception>
#include <optional>

#include "tsbridge/host/tsbridge.hpp"

namespace tsb::serve {
namespace {

// The log line's time, to the second: formatted once a second per thread
// (strftime and the time zone lookup cost more than the rest of the line).
const std::string& Timestamp() {
  thread_local std::time_t last = -1;
  thread_local std::string text;
  const std::time_t now = std::time(nullptr);
  if (now != last) {
    std::tm utc{};
    gmtime_r(&now, &utc);
    char buffer[32];
    text.assign(buffer, std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &utc));
    last = now;
  }
  return text;
}

size_t LiveHandles() {
  size_t n = 0;
  if (tsb_status* status = tsb_handle_count(&n)) tsb_status_free(status);
  return n;
}

}  // namespace

Service::Service(const ServeOptions& options)
    : options_(options), repository_(options.repository), admission_(options.workers, options.queue),
      readers_(options.workers, SIZE_MAX) {
  for (const ModelPtr& model : repository_.All()) metrics_.For(model->name, model->version);
}

InferResponse Service::Infer(const std::string& name, const std::string& version,
                             const InferCall& call) {
  const ModelPtr held = repository_.Find(name, version);  // held while it runs
  const ModelVersion& model = *held;
  ModelStats& stats = metrics_.For(model.name, model.version);
  std::optional<Clock::time_point> deadline = call.client_deadline;
  if (options_.deadline_ms > 0) {
    const Clock::time_point ours = call.arrived + std::chrono::milliseconds(options_.deadline_ms);
    if (!deadline || ours < *deadline) deadline = ours;
  }
  const auto queue_full = [&] {
    return HttpError{503, "all " + std::to_string(options_.workers) + " workers are busy and " +
                              std::to_string(options_.queue) +
                              " requests wait already (--workers, --queue): retry later"};
  };
  // A refusal (503, 504) is not the model's error; waits are not its time.
  bool refused = false;
  Clock::duration waited{};
  const auto admit = [&] {
    const Clock::time_point asked = Clock::now();
    switch (admission_.Enter(deadline, &stats.waiting)) {
      case Admission::Outcome::kQueueFull:
        refused = true;
        throw queue_full();
      case Admission::Outcome::kDeadline:
        refused = true;
        throw HttpError{504, deadline == call.client_deadline
                                 ? "no worker was free within the client's deadline"
                                 : "no worker was free within the deadline of " +
                                       std::to_string(options_.deadline_ms) +
                                       " ms (--deadline-ms)"};
      case Admission::Outcome::kAdmitted:
        break;
    }
    waited += Clock::now() - asked;
  };
  // The worker's part: the front end's check, then the call.
  const auto run = [&](const std::function<void()>& model_call) {
    admit();
    AdmissionTicket ticket(admission_);
    if (call.admitted) call.admitted();
    model_call();
  };
  const bool read_first = call.bytes <= kReadBeforeAdmission;
  // Refused at once when the queue is full already: an overloaded server
  // does not read what it will refuse.
  if (read_first && admission_.QueueFull()) throw queue_full();
  const Clock::time_point start = Clock::now();
  try {
    InferResponse response;
    if (read_first) {  // only the call holds a worker (docs/serve.md, "The server")
      // As many requests are read and converted at once as there are
      // workers, first come first served: the connection threads do not all
      // share the cores at once, in the scheduler's order.
      const Clock::time_point asked = Clock::now();
      readers_.Enter(std::nullopt);  // no queue bound: never refused
      waited += Clock::now() - asked;
      std::optional<AdmissionTicket> reading(std::in_place, readers_);
      response = serve::Infer(model, call.read(), [&](const std::function<void()>& model_call) {
        reading.reset();  // the reader's slot passes on before the call waits
        run(model_call);
      });
    } else {  // a large request is read by a worker: its parse takes memory
      run([&] { response = serve::Infer(model, call.read()); });
    }
    stats.Observe(Clock::now() - start - waited, false);
    return response;
  } catch (...) {
    if (!refused) stats.Observe(Clock::now() - start - waited, true);
    throw;
  }
}

void Service::Load(const std::string& name) {
  repository_.Load(name);
  for (const std::string& v : repository_.Versions(name)) metrics_.For(name, v);
}

void Service::Unload(const std::string& name) { repository_.Unload(name); }

std::string Service::RenderMetrics() const {
  return metrics_.Render(admission_.running(), LiveHandles());
}

void LogRequest(std::string_view client, std::string_view request, std::string_view status,
                size_t bytes, std::optional<Service::Clock::time_point> since) {
  char ms[32] = "-";
  char* ms_end = ms + 1;
  if (since) {
    const double elapsed =
        std::chrono::duration<double, std::milli>(Service::Clock::now() - *since).count();
    ms_end = std::to_chars(ms, ms + sizeof ms, elapsed, std::chars_format::fixed, 3).ptr;
  }
  std::string line;
  line.reserve(64 + client.size() + request.size());
  line.append(Timestamp()).append(" ").append(client).append(" \"").append(request);
  line.append("\" ").append(status).append(" ").append(std::to_string(bytes)).append(" ");
  line.append(ms, ms_end).append("ms\n");
  std::fwrite(line.data(), 1, line.size(), stderr);
}

}  // namespace tsb::serve
