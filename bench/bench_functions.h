// The C++ functions bench/records_plugin.cc registers as plugin functions,
// and that bench/generic_vs_static_benchmark.cc also calls directly: the
// baseline of a plugin function call is the same code, compiled the same way.
#ifndef TSBRIDGE_BENCH_BENCH_FUNCTIONS_H_
#define TSBRIDGE_BENCH_BENCH_FUNCTIONS_H_

#include <tuple>

#include <ATen/ATen.h>

namespace tsb_bench {

// tsb_bench::add(Tensor a, Tensor b) -> Tensor
inline at::Tensor Add(const at::Tensor& a, const at::Tensor& b) { return at::add(a, b); }

// tsb_bench::sum_and_diff(Tensor a, Tensor b) -> tsbridge.tensor_pair
inline std::tuple<at::Tensor, at::Tensor> SumAndDiff(const at::Tensor& a, const at::Tensor& b) {
  return {at::add(a, b), at::sub(a, b)};
}

}  // namespace tsb_bench

#endif  // TSBRIDGE_BENCH_BENCH_FUNCTIONS_H_
