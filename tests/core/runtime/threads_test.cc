// Many threads call one loaded module at once (TorchScript has no GIL);
// every result is checked.
#include <atomic>
#include <thread>
#include <vector>

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include "tests/core/runtime/runtime_testing.h"

namespace tsb::testing {
namespace {

TEST(RuntimeThreads, EightThreadsCallOneModule) {
  LoadBundledPlugins();
  Module module{nullptr};
  TSB_ASSERT_OK(tsb_module_load(Fixture("calls.pt").c_str(), Out(module)));
  constexpr int kThreads = 8;
  constexpr int kCalls = 200;
  std::atomic<int> wrong{0}, failed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kCalls; ++i) {
        at::Tensor x = at::full({3}, static_cast<double>(t * 1000 + i));
        Value xv(Boundary(x));
        tsb_any items[2] = {tsb_any_int(t), tsb_any_int(i)};
        Value p;
        Status built(tsb_tuple_new(items, 2, p.out()));
        Value out;
        const char* names[] = {"p", "bias"};
        tsb_any kw[] = {p.get(), tsb_any_int(t)};
        Status s(tsb_module_call(module.get(), "forward", ::tsb::CallArgs(&xv.get(), 1, names, kw, 2).get(), out.out()));
        if (!built.ok() || !s.ok()) {
          ++failed;
          continue;
        }
        // x * 2 + w + t + i + t
        at::Tensor want = x * 2 + at::tensor({1.0f, 2.0f, 3.0f}) + (2 * t + i);
        if (!at::allclose(FromBoundary(out.get()).toTensor(), want)) ++wrong;
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(failed.load(), 0);
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
}  // namespace tsb::testing
