// What the benchmark binaries share: a failed ABI call stops its benchmark
// loudly (never timing an error path), and a measured benchmark names the
// baseline bench/ratios.py divides it by ("vs=<baseline>").
#ifndef TSBRIDGE_BENCH_BENCH_UTIL_H_
#define TSBRIDGE_BENCH_BENCH_UTIL_H_

#include <string>
#include <utility>

#include <benchmark/benchmark.h>

#include "tsbridge/tsbridge.h"

namespace tsb_bench {

inline bool Ok(benchmark::State& state, tsb_status* s) {
  if (s == nullptr) return true;
  state.SkipWithError(tsb_status_get_message(s));
  tsb_status_free(s);
  return false;
}

// Registers `fn` as `name`, labelled with its baseline (nullptr: it is one).
template <typename F>
void AddVs(const char* name, const char* baseline, F&& fn) {
  benchmark::RegisterBenchmark(name, [fn = std::forward<F>(fn), baseline](benchmark::State& s) {
    fn(s);
    if (baseline != nullptr) s.SetLabel(std::string("vs=") + baseline);
  })->Unit(benchmark::kMicrosecond)->MinTime(0.2);
}

}  // namespace tsb_bench

#endif  // TSBRIDGE_BENCH_BENCH_UTIL_H_
