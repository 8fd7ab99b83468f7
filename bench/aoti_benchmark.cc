// AOTInductor packages (docs/export.md, LibTorch 2.6): a call through the
// host ABI (bind, flatten by the input spec, run, rebuild by the output
// spec, encode) against AOTIModelPackageLoader::run on the same tensors,
// for three small MLPs and for x + 1 (the fixed cost); and a 100-entry
// Dict[str, Tensor] in and out against a hand-written C++ flatten and
// rebuild around the same run. Packages: bench/make_aoti_bench_packages.py
// (target bench_fixtures).
//
//   aoti_benchmark [Google Benchmark options]   rows for bench/ratios.py
//   aoti_benchmark --paired [--paired_markdown]  the figure of record: each
//       row against its baseline in alternating blocks (bench/paired_harness.h)
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <ATen/ATen.h>
#include <ATen/core/Dict.h>
#include <benchmark/benchmark.h>
#include <torch/csrc/inductor/aoti_package/model_package_loader.h>

#include "bench/paired_harness.h"
#include "core/value/convert.h"
#include "tests/testing/build_paths.h"
#include "tsbridge/host/tsbridge.hpp"
#include "tsbridge/tsbridge.h"

namespace {

using tsb_bench::Add;
using tsb_bench::Loop;
using tsb_bench::StatusOf;

std::string Package(const char* name) {
  return std::string(tsb::testing::BuildPath("TSB_AOTI_BENCH_PACKAGES")) + "/" + name;
}

struct Case {
  std::unique_ptr<torch::inductor::AOTIModelPackageLoader> loader;
  tsb_module* module = nullptr;
  at::Tensor input;
  tsb_any input_any{};
};
Case g_mlp, g_mid, g_tiny, g_small, g_dict;
c10::Dict<std::string, at::Tensor> g_dict_value;
std::vector<std::string> g_keys;  // in the spec's order

// forward(input) through the host ABI, the result released: each `abi` row.
Loop CallForward(const Case* c) {
  return [c](int64_t n) {
    tsb::CallArgs args(&c->input_any, 1);
    for (int64_t i = 0; i < n; ++i) {
      tsb_any out{};
      if (tsb_status* s = tsb_module_call(c->module, "forward", args.get(), &out)) {
        return StatusOf(s);
      }
      tsb_any_release(&out);
    }
    return absl::OkStatus();
  };
}

// The loader's own run on the same tensor: the models' baselines.
Loop RunDirect(const Case* c) {
  return [c](int64_t n) {
    std::vector<at::Tensor> in{c->input};
    for (int64_t i = 0; i < n; ++i) benchmark::DoNotOptimize(c->loader->run(in));
    return absl::OkStatus();
  };
}

// The hand-written flatten a C++ caller of AOTIModelPackageLoader writes:
// the dict's tensors in the spec's key order, then a dict of the outputs.
absl::Status DictDirect(int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    std::vector<at::Tensor> flat;
    flat.reserve(g_keys.size());
    for (const std::string& key : g_keys) flat.push_back(g_dict_value.at(key));
    std::vector<at::Tensor> outputs = g_dict.loader->run(flat);
    c10::Dict<std::string, at::Tensor> result;
    result.reserve(outputs.size());
    for (size_t k = 0; k < outputs.size(); ++k) result.insert(g_keys[k], std::move(outputs[k]));
    benchmark::DoNotOptimize(result);
  }
  return absl::OkStatus();
}

bool Load(const char* name, at::Tensor input, Case* c) {
  std::string path = Package(name);
  if (tsb_status* s = tsb_module_load(path.c_str(), &c->module)) {
    std::fprintf(stderr, "setup failed: %s (build the target bench_fixtures)\n",
                 tsb_status_get_message(s));
    tsb_status_free(s);
    return false;
  }
  c->loader = std::make_unique<torch::inductor::AOTIModelPackageLoader>(path, "model");
  c->input = std::move(input);
  return tsb::ToBoundary(c->input, &c->input_any).ok();
}

// Outside the timed loops: both paths compute the same values.
bool Same(const Case& c, const std::function<bool(const c10::IValue&)>& check) {
  tsb_any out{};
  tsb_status* s = tsb_module_call(c.module, "forward", tsb::CallArgs(&c.input_any, 1).get(), &out);
  absl::StatusOr<c10::IValue> got =
      s == nullptr ? tsb::ToIValue(out) : StatusOf(s);
  tsb_any_release(&out);
  if (!got.ok()) {
    std::fprintf(stderr, "setup failed: %s\n", got.status().ToString().c_str());
    return false;
  }
  const bool same = check(*got);
  if (!same) std::fprintf(stderr, "setup failed: the two paths' results differ\n");
  return same;
}

bool Setup() {
  // Output leaves are Optional[Tensor], tuples Tuple: the bundled plugins'
  // kinds, loaded on first need as every host has them.
  if (tsb_status* s = tsb_plugin_defer_bundled()) {
    std::fprintf(stderr, "setup failed: %s\n", tsb_status_get_message(s));
    tsb_status_free(s);
    return false;
  }
  for (int i = 0; i < 100; ++i) {
    g_keys.push_back("k" + std::to_string(i));
    g_dict_value.insert(g_keys.back(), at::rand({4}));
  }
  if (!Load("mlp.pt2", at::rand({8, 64}), &g_mlp) ||
      !Load("mlp_mid.pt2", at::rand({4, 32}), &g_mid) ||
      !Load("mlp_tiny.pt2", at::rand({4, 16}), &g_tiny) ||
      !Load("small.pt2", at::rand({16}), &g_small) ||
      !Load("dict100.pt2", at::rand({1}), &g_dict)) {
    return false;
  }
  // The dict case's argument is the dict, not a tensor.
  tsb_any_release(&g_dict.input_any);
  if (!tsb::ToBoundary(c10::IValue(g_dict_value), &g_dict.input_any).ok()) return false;
  auto same_as_run = [](const Case& c) {
    return [&c](const c10::IValue& v) {
      return v.isTensor() && v.toTensor().equal(c.loader->run({c.input})[0]);
    };
  };
  return Same(g_mlp, same_as_run(g_mlp)) && Same(g_mid, same_as_run(g_mid)) &&
         Same(g_tiny, same_as_run(g_tiny)) &&
         Same(g_small, same_as_run(g_small)) && Same(g_dict, [](const c10::IValue& v) {
           return v.isGenericDict() &&
                  v.toGenericDict().at("k7").toTensor().equal(g_dict_value.at("k7") + 1);
         });
}

void TearDown() {
  for (Case* c : {&g_mlp, &g_mid, &g_tiny, &g_small, &g_dict}) {
    tsb_any_release(&c->input_any);
    tsb_module_free(c->module);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const tsb_bench::PairedOptions paired = tsb_bench::ParsePaired(&argc, argv);
  if (paired.on && !paired.child) return tsb_bench::RunPairedProcesses(paired);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  if (!Setup()) return 1;

  Add("aoti/mlp/direct", "", RunDirect(&g_mlp));
  Add("aoti/mlp/abi", "aoti/mlp/direct", CallForward(&g_mlp));
  Add("aoti/mlp_mid/direct", "", RunDirect(&g_mid));
  Add("aoti/mlp_mid/abi", "aoti/mlp_mid/direct", CallForward(&g_mid));
  Add("aoti/mlp_tiny/direct", "", RunDirect(&g_tiny));
  Add("aoti/mlp_tiny/abi", "aoti/mlp_tiny/direct", CallForward(&g_tiny));
  Add("aoti/small/direct", "", RunDirect(&g_small));
  Add("aoti/small/abi", "aoti/small/direct", CallForward(&g_small));
  Add("aoti/dict100/direct", "", DictDirect);
  Add("aoti/dict100/abi", "aoti/dict100/direct", CallForward(&g_dict));

  const int rc = tsb_bench::RunRows(paired);
  benchmark::Shutdown();
  TearDown();
  return rc;
}
