// The runtime's call overhead: a method that returns its argument, called
// through the host ABI (tsb_module_call: decode, bind by schema, run,
// encode) against the same module's method called directly in C++; and
// aten::add by name through tsb_op_call (the overload chosen from ~20
// candidates on every call) against at::add. Every measured benchmark
// carries "vs=<baseline>" for bench/ratios.py.
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include <ATen/ATen.h>
#include <benchmark/benchmark.h>

#include "bench/bench_util.h"
#include "core/runtime/module.h"  // the tsb_module's torch::jit::Module, for the baseline
#include "tsbridge/plugin/kind_codec.hpp"
#include "core/value/convert.h"
#include "tsbridge/tsbridge.h"
#include "tsbridge/host/tsbridge.hpp"

namespace {

constexpr const char* kSource =
    "def f(self, x: Tensor) -> Tensor:\n"
    "    return x\n";

tsb_module* g_module = nullptr;
at::Tensor g_a, g_b;
tsb_any g_a_any{}, g_b_any{};

using tsb_bench::Ok;


bool Setup() {
  if (tsb_status* s = tsb_module_compile(kSource, &g_module)) {
    std::fprintf(stderr, "setup failed: %s\n", tsb_status_get_message(s));
    tsb_status_free(s);
    return false;
  }
  g_a = at::rand({16});
  g_b = at::rand({16});
  if (!tsb::ToBoundary(g_a, &g_a_any).ok() || !tsb::ToBoundary(g_b, &g_b_any).ok()) {
    return false;
  }
  // Outside the timed loops: both paths compute the same values.
  tsb_any out{};
  tsb_any args[2] = {g_a_any, g_b_any};
  tsb_status* s = tsb_op_call("aten::add", ::tsb::CallArgs(args, 2).get(), &out);
  bool same = s == nullptr && tsb::ToIValue(out)->toTensor().equal(at::add(g_a, g_b));
  tsb_any_release(&out);
  tsb_status_free(s);
  s = tsb_module_call(g_module, "f", ::tsb::CallArgs(&g_a_any, 1).get(), &out);
  same = same && s == nullptr && tsb::ToIValue(out)->toTensor().is_same(g_a);
  tsb_any_release(&out);
  tsb_status_free(s);
  if (!same) std::fprintf(stderr, "setup failed: the ABI and direct results differ\n");
  return same;
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  if (!Setup()) return 1;

  tsb_bench::AddVs("runtime/method/direct", nullptr, [](benchmark::State& state) {
    torch::jit::Method method = g_module->module.get_method("f");
    for (auto _ : state) {
      c10::IValue out = method({g_a});
      benchmark::DoNotOptimize(out);
    }
  });
  tsb_bench::AddVs("runtime/method/abi", "runtime/method/direct", [](benchmark::State& state) {
    for (auto _ : state) {
      tsb_any out;
      if (!Ok(state, tsb_module_call(g_module, "f", ::tsb::CallArgs(&g_a_any, 1).get(), &out))) {
        return;
      }
      tsb_any_release(&out);
    }
  });
  tsb_bench::AddVs("runtime/op_add/direct", nullptr, [](benchmark::State& state) {
    for (auto _ : state) {
      at::Tensor out = at::add(g_a, g_b);
      benchmark::DoNotOptimize(out);
    }
  });
  tsb_bench::AddVs("runtime/op_add/abi", "runtime/op_add/direct", [](benchmark::State& state) {
    tsb_any args[2] = {g_a_any, g_b_any};
    for (auto _ : state) {
      tsb_any out;
      if (!Ok(state, tsb_op_call("aten::add", ::tsb::CallArgs(args, 2).get(), &out))) return;
      tsb_any_release(&out);
    }
  });
  // The Scalar overload's own baseline: at::add(Tensor, Scalar) wraps the
  // int into a tensor, which at::add(Tensor, Tensor) does not pay.
  tsb_bench::AddVs("runtime/op_add_scalar/direct", nullptr, [](benchmark::State& state) {
    for (auto _ : state) {
      at::Tensor out = at::add(g_a, c10::Scalar(int64_t{1}));
      benchmark::DoNotOptimize(out);
    }
  });
  tsb_bench::AddVs("runtime/op_add_scalar/abi", "runtime/op_add_scalar/direct", [](benchmark::State& state) {
    tsb_any args[2] = {g_a_any, tsb_any_int(1)};
    for (auto _ : state) {
      tsb_any out;
      if (!Ok(state, tsb_op_call("aten::add", ::tsb::CallArgs(args, 2).get(), &out))) return;
      tsb_any_release(&out);
    }
  });

  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  tsb_any_release(&g_a_any);
  tsb_any_release(&g_b_any);
  tsb_module_free(g_module);
  if (size_t live = ::tsb::LiveHandles(); live != 0) {
    std::fprintf(stderr, "WARNING: %lld boundary handles leaked\n", static_cast<long long>(live));
    return 1;
  }
  return 0;
}
