// List[int] and List[float] of 2^20 elements through the host ABI, each
// against a memcpy of the same 8 MiB between two std::vectors: the floor any
// copy into or out of a host buffer pays. Every measured benchmark carries the
// label "vs=<baseline>" so that bench/ratios.py can pair it with its baseline.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>

#include "bench/bench_util.h"
#include "tsbridge/tsbridge.h"
#include "tsbridge/host/tsbridge.hpp"

namespace {

constexpr size_t kN = size_t{1} << 20;

using tsb_bench::Ok;

template <typename T>
struct Ops;
template <>
struct Ops<int64_t> {
  static constexpr const char* kName = "int64";
  static tsb_status* From(const int64_t* d, size_t n, tsb_any* o) { return tsb_list_new_int(d, n, o); }
  static tsb_status* Copy(const tsb_any* l, int64_t* o, size_t n) { return tsb_list_copy_int(l, n, o); }
  static tsb_status* Get(const tsb_any* v, int64_t* o) { return tsb_int_get(v, o); }
};
template <>
struct Ops<double> {
  static constexpr const char* kName = "float64";
  static tsb_status* From(const double* d, size_t n, tsb_any* o) { return tsb_list_new_float(d, n, o); }
  static tsb_status* Copy(const tsb_any* l, double* o, size_t n) { return tsb_list_copy_float(l, n, o); }
  static tsb_status* Get(const tsb_any* v, double* o) { return tsb_float_get(v, o); }
};

// Short runs keep the whole set under two minutes on 2 cores.
template <typename F>
void Add(const std::string& name, F&& fn) {
  benchmark::RegisterBenchmark(name.c_str(), std::forward<F>(fn))
      ->Unit(benchmark::kMicrosecond)
      ->MinTime(0.2);
}

// Built once, outside every timed loop, and released before the leak check.
template <typename T>
struct Fixture {
  std::vector<T> host = std::vector<T>(kN);
  tsb_any list = tsb_any_none();
};
Fixture<int64_t> g_int;
Fixture<double> g_float;

template <typename T>
void Register(Fixture<T>& f) {
  const std::string prefix = std::string("list/") + Ops<T>::kName + "/";
  const std::string baseline = prefix + "memcpy";
  const std::string vs = "vs=" + baseline;
  const int64_t bytes = static_cast<int64_t>(kN * sizeof(T));

  Add(baseline, [&f, bytes](benchmark::State& state) {
    std::vector<T> out(kN);
    for (auto _ : state) {
      std::memcpy(out.data(), f.host.data(), kN * sizeof(T));
      benchmark::DoNotOptimize(out.data());
      benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(state.iterations() * bytes);
  });

  // Out, bulk: one call, one pass over the list.
  Add(prefix + "out_bulk", [&f, bytes, vs](benchmark::State& state) {
    std::vector<T> out(kN);
    for (auto _ : state) {
      if (!Ok(state, Ops<T>::Copy(&f.list, out.data(), kN))) return;
      benchmark::DoNotOptimize(out.data());
      benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(state.iterations() * bytes);
    state.SetLabel(vs.c_str());
  });

  // Out, element by element: what a naive host binding does; two checked ABI
  // calls per element.
  Add(prefix + "out_per_element", [&f, bytes, vs](benchmark::State& state) {
    std::vector<T> out(kN);
    for (auto _ : state) {
      for (size_t i = 0; i < kN; ++i) {
        tsb_any item;
        if (!Ok(state, tsb_list_get(&f.list, i, &item))) return;
        tsb_status* s = Ops<T>::Get(&item, &out[i]);
        tsb_any_release(&item);  // a no-op for inline scalars, but a host cannot know that
        if (!Ok(state, s)) return;
      }
      benchmark::DoNotOptimize(out.data());
      benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(state.iterations() * bytes);
    state.SetLabel(vs.c_str());
  });

  // In: a new boundary list from a host buffer. Its release is timed too,
  // since a host pays for it on every call.
  Add(prefix + "in_from", [&f, bytes, vs](benchmark::State& state) {
    for (auto _ : state) {
      tsb_any list;
      if (!Ok(state, Ops<T>::From(f.host.data(), kN, &list))) return;
      benchmark::DoNotOptimize(list);
      tsb_any_release(&list);
    }
    state.SetBytesProcessed(state.iterations() * bytes);
    state.SetLabel(vs.c_str());
  });
}

template <typename T>
bool Build(Fixture<T>& f) {
  std::iota(f.host.begin(), f.host.end(), T{0});
  tsb_status* s = Ops<T>::From(f.host.data(), kN, &f.list);
  if (s == nullptr) return true;
  std::fprintf(stderr, "setup failed: %s\n", tsb_status_get_message(s));
  tsb_status_free(s);
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  if (!Build(g_int) || !Build(g_float)) return 1;
  Register(g_int);
  Register(g_float);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  tsb_any_release(&g_int.list);
  tsb_any_release(&g_float.list);
  // A benchmark that leaks handles measures the wrong thing.
  if (size_t live = ::tsb::LiveHandles(); live != 0) {
    std::fprintf(stderr, "WARNING: %lld boundary handles leaked\n", static_cast<long long>(live));
    return 1;
  }
  return 0;
}
