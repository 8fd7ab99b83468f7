#include "hosts/serve/admission.h"

#include <algorithm>

namespace tsb::serve {

Admission::Outcome Admission::Enter(std::optional<Clock::time_point> deadline,
                                    std::atomic<int64_t>* waiting) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (running_ < workers_ && waiters_.empty()) {
    ++running_;
    return Outcome::kAdmitted;
  }
  if (waiters_.size() >= queue_) return Outcome::kQueueFull;
  Waiter me;
  waiters_.push_back(&me);
  if (waiting) ++*waiting;
  const auto admitted = [&] { return me.admitted; };
  bool in_time = true;
  if (deadline) {
    in_time = me.wake.wait_until(lock, *deadline, admitted);
  } else {
    me.wake.wait(lock, admitted);
  }
  if (waiting) --*waiting;
  if (!in_time) {  // not admitted: still queued, leaves the queue
    waiters_.erase(std::find(waiters_.begin(), waiters_.end(), &me));
    return Outcome::kDeadline;
  }
  return Outcome::kAdmitted;  // the slot Leave passed on: running_ counts it still
}

void Admission::Leave() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (waiters_.empty()) {
    --running_;
    return;
  }
  Waiter* next = waiters_.front();
  waiters_.pop_front();
  next->admitted = true;
  // Under the lock: `next` lives on its thread's stack until it has the
  // lock again and sees `admitted`.
  next->wake.notify_one();
}

bool Admission::QueueFull() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return running_ >= workers_ && waiters_.size() >= queue_;
}

size_t Admission::running() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return running_;
}

size_t Admission::waiting() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return waiters_.size();
}

}  // namespace tsb::serve
