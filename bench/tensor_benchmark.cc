// A tensor of 1 KB and one of 1 GB crossing the boundary as DLPack, out
// (tsb_tensor_to_dlpack) and back in (tsb_tensor_from_dlpack), then released.
// Zero copy means the cost does not depend on the size: time(1 GB) /
// time(1 KB) should be about 1.0. A memcpy of the 1 GB is measured as well, to
// show what a copying boundary would cost against the same baseline.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <ATen/ATen.h>
#include <ATen/dlpack.h>  // LibTorch's own DLPack (v0.6), the one the ABI uses
#include <benchmark/benchmark.h>

#include "bench/bench_util.h"
#include "tsbridge/plugin/kind_codec.hpp"
#include "core/value/convert.h"
#include "tsbridge/tsbridge.h"
#include "tsbridge/host/tsbridge.hpp"

namespace {

constexpr int64_t kSmall = int64_t{1} << 10;
constexpr int64_t kLarge = int64_t{1} << 30;
const char* const kBaseline = "tensor/crossing/1KB";

using tsb_bench::Ok;

// Allocated once; zero-filled so that the 1 GB is resident and a copying
// implementation would really pay for it.
struct Fixture {
  at::Tensor tensor;
  tsb_any handle = tsb_any_none();
};
Fixture g_small, g_large;

// Round trip once outside the timed loop: the tensor that comes back must
// share the original's storage, or the ratio would not mean zero copy.
bool Build(Fixture& f, int64_t bytes) {
  f.tensor = at::zeros({bytes}, at::kByte);
  absl::Status st = tsb::ToBoundary(c10::IValue(f.tensor), &f.handle);
  if (!st.ok()) {
    std::fprintf(stderr, "setup failed: %s\n", st.ToString().c_str());
    return false;
  }
  DLManagedTensor* managed = nullptr;
  tsb_any back;
  tsb_status* s = tsb_tensor_to_dlpack(&f.handle, &managed);
  if (s == nullptr) {
    s = tsb_tensor_from_dlpack(managed, &back);
    if (s != nullptr) managed->deleter(managed);
  }
  if (s != nullptr) {
    std::fprintf(stderr, "setup failed: %s\n", tsb_status_get_message(s));
    tsb_status_free(s);
    return false;
  }
  absl::StatusOr<c10::IValue> iv = tsb::ToIValue(back);
  bool shared = iv.ok() && iv->isTensor() && iv->toTensor().data_ptr() == f.tensor.data_ptr();
  tsb_any_release(&back);
  if (!shared) std::fprintf(stderr, "setup failed: the crossing copied the tensor\n");
  return shared;
}

void Crossing(benchmark::State& state, Fixture& f, const char* vs) {
  for (auto _ : state) {
    DLManagedTensor* managed = nullptr;
    if (!Ok(state, tsb_tensor_to_dlpack(&f.handle, &managed))) return;
    tsb_any back;
    tsb_status* s = tsb_tensor_from_dlpack(managed, &back);
    if (s != nullptr) managed->deleter(managed);  // ownership stays with us on failure
    if (!Ok(state, s)) return;
    benchmark::DoNotOptimize(back);
    tsb_any_release(&back);
  }
  if (vs != nullptr) state.SetLabel(std::string("vs=").append(vs).c_str());
}

template <typename F>
benchmark::internal::Benchmark* Add(const char* name, F&& fn) {
  return benchmark::RegisterBenchmark(name, std::forward<F>(fn))
      ->Unit(benchmark::kMicrosecond)
      ->MinTime(0.2);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  if (!Build(g_small, kSmall) || !Build(g_large, kLarge)) return 1;

  Add(kBaseline, [](benchmark::State& s) { Crossing(s, g_small, nullptr); });
  Add("tensor/crossing/1GB", [](benchmark::State& s) { Crossing(s, g_large, kBaseline); });
  // Context only: the cost zero copy avoids. A few iterations are enough.
  Add("tensor/memcpy/1GB", [](benchmark::State& state) {
    std::vector<uint8_t> out(kLarge, 1);  // touched, so page faults stay out of the loop
    for (auto _ : state) {
      std::memcpy(out.data(), g_large.tensor.data_ptr(), kLarge);
      benchmark::DoNotOptimize(out.data());
      benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(state.iterations() * kLarge);
    state.SetLabel((std::string("vs=") + kBaseline).c_str());
  })->MinTime(0.5);

  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  tsb_any_release(&g_small.handle);
  tsb_any_release(&g_large.handle);
  if (size_t live = ::tsb::LiveHandles(); live != 0) {
    std::fprintf(stderr, "WARNING: %lld boundary handles leaked\n", static_cast<long long>(live));
    return 1;
  }
  return 0;
}
