// tsb serve's admission (hosts/serve/admission.h): waiting requests get a
// freed slot in the order they came, a full queue refuses at once, a
// deadline refuses a request still waiting and keeps its place for no one.
#include "hosts/serve/admission.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

namespace tsb::serve {
namespace {

using namespace std::chrono_literals;

// Waits until `admission` has `n` requests waiting.
void AwaitWaiting(const Admission& admission, size_t n) {
  const auto until = Admission::Clock::now() + 30s;
  while (admission.waiting() != n) {
    ASSERT_LT(Admission::Clock::now(), until) << "never " << n << " waiting";
    std::this_thread::sleep_for(1ms);
  }
}

TEST(Admission, FreedSlotsGoToWaitersInTheOrderTheyCame) {
  constexpr int kWaiters = 12;
  Admission admission(1, kWaiters);  // one slot: the admitted run one after another
  std::atomic<int64_t> depth{0};
  ASSERT_EQ(admission.Enter(std::nullopt, &depth), Admission::Outcome::kAdmitted);
  std::mutex mutex;
  std::vector<int> order;
  std::vector<std::thread> threads;
  for (int i = 0; i < kWaiters; ++i) {
    threads.emplace_back([&, i] {
      if (admission.Enter(std::nullopt, &depth) != Admission::Outcome::kAdmitted) return;
      {
        std::lock_guard<std::mutex> lock(mutex);
        order.push_back(i);
      }
      admission.Leave();  // the next in line runs once this one is done
    });
    AwaitWaiting(admission, static_cast<size_t>(i) + 1);  // i came before i + 1
  }
  EXPECT_EQ(depth.load(), kWaiters);
  admission.Leave();
  for (std::thread& t : threads) t.join();
  std::vector<int> expected;
  for (int i = 0; i < kWaiters; ++i) expected.push_back(i);
  EXPECT_EQ(order, expected);
  EXPECT_EQ(depth.load(), 0);
  EXPECT_EQ(admission.running(), 0u);
  EXPECT_EQ(admission.waiting(), 0u);
}

TEST(Admission, NoRequestPassesTheQueue) {
  Admission admission(1, 4);
  std::atomic<int64_t> depth{0};
  ASSERT_EQ(admission.Enter(std::nullopt, &depth), Admission::Outcome::kAdmitted);
  std::atomic<bool> first_admitted{false};
  std::thread first([&] {
    ASSERT_EQ(admission.Enter(std::nullopt, &depth), Admission::Outcome::kAdmitted);
    first_admitted = true;
  });
  AwaitWaiting(admission, 1);
  admission.Leave();  // passed to `first`, not freed
  EXPECT_EQ(admission.running(), 1u);
  // A newcomer finds the slot taken: it waits (and gives up at its deadline).
  EXPECT_EQ(admission.Enter(Admission::Clock::now() + 20ms, &depth), Admission::Outcome::kDeadline);
  first.join();
  EXPECT_TRUE(first_admitted);
  admission.Leave();
  EXPECT_EQ(admission.running(), 0u);
}

TEST(Admission, AFullQueueRefusesAtOnce) {
  Admission admission(1, 1);
  std::atomic<int64_t> depth{0};
  EXPECT_FALSE(admission.QueueFull());
  ASSERT_EQ(admission.Enter(std::nullopt, &depth), Admission::Outcome::kAdmitted);
  EXPECT_FALSE(admission.QueueFull());  // the slot is taken, the queue has room
  std::thread waiter([&] {
    EXPECT_EQ(admission.Enter(std::nullopt, &depth), Admission::Outcome::kAdmitted);
    admission.Leave();
  });
  AwaitWaiting(admission, 1);
  EXPECT_TRUE(admission.QueueFull());
  EXPECT_EQ(admission.Enter(std::nullopt, &depth), Admission::Outcome::kQueueFull);
  admission.Leave();
  waiter.join();
  EXPECT_FALSE(admission.QueueFull());
  EXPECT_EQ(admission.running(), 0u);
}

TEST(Admission, AWaiterPastItsDeadlineLeavesTheQueue) {
  Admission admission(1, 4);
  std::atomic<int64_t> depth{0};
  ASSERT_EQ(admission.Enter(std::nullopt, &depth), Admission::Outcome::kAdmitted);
  std::thread patient;
  std::atomic<bool> patient_admitted{false};
  std::thread hasty([&] {
    EXPECT_EQ(admission.Enter(Admission::Clock::now() + 50ms, &depth), Admission::Outcome::kDeadline);
  });
  AwaitWaiting(admission, 1);
  patient = std::thread([&] {
    ASSERT_EQ(admission.Enter(std::nullopt, &depth), Admission::Outcome::kAdmitted);
    patient_admitted = true;
    admission.Leave();
  });
  AwaitWaiting(admission, 2);
  hasty.join();  // gave up: out of the queue
  EXPECT_EQ(admission.waiting(), 1u);
  admission.Leave();  // to `patient`, the one still waiting
  patient.join();
  EXPECT_TRUE(patient_admitted);
  EXPECT_EQ(admission.running(), 0u);
  EXPECT_EQ(depth.load(), 0);
}

}  // namespace
}  // namespace tsb::serve
