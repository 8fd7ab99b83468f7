// AOTInductor packages (docs/export.md, LibTorch 2.6): a call through the
// host ABI (bind, flatten by the input spec, run, rebuild by the output
// spec, encode) against AOTIModelPackageLoader::run on the same tensors,
// for a small MLP and for x + 1 (the fixed cost);
// and a 100-entry Dict[str, Tensor] in and out against a hand-written C++
// flatten and rebuild around the same run. Packages: bench/
// make_aoti_bench_packages.py (target bench_fixtures).
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include <ATen/ATen.h>
#include <ATen/core/Dict.h>
#include <benchmark/benchmark.h>
#include <torch/csrc/inductor/aoti_package/model_package_loader.h>

#include "bench/bench_util.h"
#include "core/value/convert.h"
#include "tests/testing/build_paths.h"
#include "tsbridge/plugin/kind_codec.hpp"
#include "tsbridge/tsbridge.h"
#include "tsbridge/host/tsbridge.hpp"

namespace {

std::string Package(const char* name) {
  return std::string(tsb::testing::BuildPath("TSB_AOTI_BENCH_PACKAGES")) + "/" + name;
}

struct Case {
  std::unique_ptr<torch::inductor::AOTIModelPackageLoader> loader;
  tsb_module* module = nullptr;
};
Case g_mlp, g_small, g_dict;
at::Tensor g_x, g_batch;
tsb_any g_x_any{}, g_batch_any{}, g_dict_any{};
c10::Dict<std::string, at::Tensor> g_dict_value;
std::vector<std::string> g_keys;  // in the spec's order

using tsb_bench::Ok;

// forward(arg) through the host ABI, the result released: each `abi` row.
void CallForward(benchmark::State& state, tsb_module* module, const tsb_any& arg) {
  tsb::CallArgs args(&arg, 1);
  for (auto _ : state) {
    tsb_any out{};
    if (!Ok(state, tsb_module_call(module, "forward", args.get(), &out))) break;
    tsb_any_release(&out);
  }
}

// The loader's own run on one tensor: the small models' baselines.
void RunDirect(benchmark::State& state, const Case& c, const at::Tensor& x) {
  std::vector<at::Tensor> in{x};
  for (auto _ : state) benchmark::DoNotOptimize(c.loader->run(in));
}

bool Load(const char* name, Case* c) {
  std::string path = Package(name);
  if (tsb_status* s = tsb_module_load(path.c_str(), &c->module)) {
    std::fprintf(stderr, "setup failed: %s (build the target bench_fixtures)\n",
                 tsb_status_get_message(s));
    tsb_status_free(s);
    return false;
  }
  c->loader = std::make_unique<torch::inductor::AOTIModelPackageLoader>(path, "model");
  return true;
}

bool Setup() {
  // Output leaves are Optional[Tensor], tuples Tuple: the bundled plugins'
  // kinds, loaded on first need as every host has them.
  if (tsb_status* s = tsb_plugin_defer_bundled()) {
    std::fprintf(stderr, "setup failed: %s\n", tsb_status_get_message(s));
    tsb_status_free(s);
    return false;
  }
  if (!Load("mlp.pt2", &g_mlp) || !Load("small.pt2", &g_small) ||
      !Load("dict100.pt2", &g_dict)) {
    return false;
  }
  g_x = at::rand({16});
  g_batch = at::rand({8, 64});
  for (int i = 0; i < 100; ++i) {
    g_keys.push_back("k" + std::to_string(i));
    g_dict_value.insert(g_keys.back(), at::rand({4}));
  }
  if (!tsb::ToBoundary(g_x, &g_x_any).ok() || !tsb::ToBoundary(g_batch, &g_batch_any).ok() ||
      !tsb::ToBoundary(c10::IValue(g_dict_value), &g_dict_any).ok()) {
    return false;
  }
  // Outside the timed loops: both paths compute the same values.
  tsb_any out{};
  tsb_status* s = tsb_module_call(g_small.module, "forward", ::tsb::CallArgs(&g_x_any, 1).get(), &out);
  bool same = s == nullptr && tsb::ToIValue(out)->toTensor().equal(g_x + 1);
  tsb_any_release(&out);
  if (s == nullptr) {
    s = tsb_module_call(g_dict.module, "forward", ::tsb::CallArgs(&g_dict_any, 1).get(), &out);
  }
  same = same && s == nullptr &&
         tsb::ToIValue(out)->toGenericDict().at("k7").toTensor().equal(g_dict_value.at("k7") + 1);
  tsb_any_release(&out);
  if (s != nullptr) std::fprintf(stderr, "setup failed: %s\n", tsb_status_get_message(s));
  tsb_status_free(s);
  if (!same) std::fprintf(stderr, "setup failed: a result is not the input plus one\n");
  return same;
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  if (!Setup()) return 1;

  tsb_bench::AddVs("aoti/mlp/direct", nullptr,
                   [](benchmark::State& state) { RunDirect(state, g_mlp, g_batch); });
  tsb_bench::AddVs("aoti/mlp/abi", "aoti/mlp/direct",
                   [](benchmark::State& state) { CallForward(state, g_mlp.module, g_batch_any); });
  tsb_bench::AddVs("aoti/small/direct", nullptr,
                   [](benchmark::State& state) { RunDirect(state, g_small, g_x); });
  tsb_bench::AddVs("aoti/small/abi", "aoti/small/direct",
                   [](benchmark::State& state) { CallForward(state, g_small.module, g_x_any); });
  // The hand-written flatten a C++ caller of AOTIModelPackageLoader writes:
  // the dict's tensors in the spec's key order, then a dict of the outputs.
  tsb_bench::AddVs("aoti/dict100/direct", nullptr, [](benchmark::State& state) {
    for (auto _ : state) {
      std::vector<at::Tensor> flat;
      flat.reserve(g_keys.size());
      for (const std::string& key : g_keys) flat.push_back(g_dict_value.at(key));
      std::vector<at::Tensor> outputs = g_dict.loader->run(flat);
      c10::Dict<std::string, at::Tensor> result;
      result.reserve(outputs.size());
      for (size_t i = 0; i < outputs.size(); ++i) result.insert(g_keys[i], std::move(outputs[i]));
      benchmark::DoNotOptimize(result);
    }
  });
  tsb_bench::AddVs("aoti/dict100/abi", "aoti/dict100/direct",
                   [](benchmark::State& state) { CallForward(state, g_dict.module, g_dict_any); });
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  tsb_any_release(&g_x_any);
  tsb_any_release(&g_batch_any);
  tsb_any_release(&g_dict_any);
  tsb_module_free(g_mlp.module);
  tsb_module_free(g_small.module);
  tsb_module_free(g_dict.module);
  return 0;
}
