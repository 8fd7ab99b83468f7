// How many inference calls run at once and how many may wait: `workers`
// slots that run a call, a queue of at most `queue` requests waiting for
// one (docs/serve.md). A request past that is refused at once (503), one
// that waits past its deadline is refused then (504). The call runs on the
// connection's own thread once admitted, so no hand-off costs latency.
// Waiting requests are admitted in the order they came: a slot that frees
// passes to the longest waiting, so no request waits behind later ones.
#ifndef TSBRIDGE_HOSTS_SERVE_ADMISSION_H_
#define TSBRIDGE_HOSTS_SERVE_ADMISSION_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>

namespace tsb::serve {

class Admission {
 public:
  using Clock = std::chrono::steady_clock;
  enum class Outcome { kAdmitted, kQueueFull, kDeadline };

  Admission(size_t workers, size_t queue) : workers_(workers), queue_(queue) {}

  // Takes a worker slot, waiting in the queue until `deadline` (or for as
  // long as it takes, without one) if none is free; `waiting`, where given,
  // counts this request while it waits (a model's queue depth). kAdmitted
  // must be followed by one Leave().
  Outcome Enter(std::optional<Clock::time_point> deadline,
                std::atomic<int64_t>* waiting = nullptr);
  // Frees the slot, or passes it to the longest waiting request.
  void Leave();

  // Whether a request coming now would be refused: every slot busy and
  // the queue full (a hint: Enter decides).
  bool QueueFull() const;

  size_t running() const;
  size_t waiting() const;

 private:
  // A waiting request, on its own thread's stack while it waits.
  struct Waiter {
    std::condition_variable wake;
    bool admitted = false;  // the slot was passed to it
  };

  const size_t workers_, queue_;
  mutable std::mutex mutex_;
  std::deque<Waiter*> waiters_;  // in the order they came
  size_t running_ = 0;
};

// A worker slot held for a scope.
class AdmissionTicket {
 public:
  explicit AdmissionTicket(Admission& admission) : admission_(admission) {}
  ~AdmissionTicket() { admission_.Leave(); }
  AdmissionTicket(const AdmissionTicket&) = delete;
  AdmissionTicket& operator=(const AdmissionTicket&) = delete;

 private:
  Admission& admission_;
};

}  // namespace tsb::serve

#endif  // TSBRIDGE_HOSTS_SERVE_ADMISSION_H_
