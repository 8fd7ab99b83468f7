#include "hosts/serve/admission.h"

namespace tsb::serve {

Admission::Outcome Admission::Enter(std::optional<Clock::time_point> deadline, std::atomic<int64_t>& waiting) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (running_ < workers_ && waiting_ == 0) {
    ++running_;
    return Outcome::kAdmitted;
  }
  if (waiting_ >= queue_) return Outcome::kQueueFull;
  ++waiting_;
  ++waiting;
  const auto slot_free = [&] { return running_ < workers_; };
  bool free = true;
  if (deadline) {
    free = free_.wait_until(lock, *deadline, slot_free);
  } else {
    free_.wait(lock, slot_free);
  }
  --waiting_;
  --waiting;
  if (!free) return Outcome::kDeadline;
  ++running_;
  return Outcome::kAdmitted;
}

void Admission::Leave() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    --running_;
  }
  free_.notify_one();
}

size_t Admission::running() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return running_;
}

size_t Admission::waiting() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return waiting_;
}

}  // namespace tsb::serve
