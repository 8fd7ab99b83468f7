// torchsparse::spmm (the sparse plugin's CSR kernel) with sum, mean and max
// against LibTorch's own sparse x dense product, torch::mm on a coalesced
// COO tensor, on the same float32 matrices, 2 threads. Each ratio is
// spmm / torch::mm for one size and density. torch::mm on the CSR layout
// (LibTorch 1.13's beta) runs too, against the same baseline, as context.
// LibTorch has no max or mean product: those rows show what the extra
// reductions cost against the sum LibTorch computes.
#include <cstdio>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <ATen/Parallel.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include "tests/testing/build_paths.h"
#include "tsbridge/tsbridge.h"

using tsb::testing::BuildPath;

namespace {

using at::Tensor;
using OptTensor = c10::optional<Tensor>;
using SpmmFn = std::tuple<Tensor, OptTensor>(const Tensor&, const Tensor&, const OptTensor&,
                                             const Tensor&, const std::string&);

struct Case {
  const char* name;
  int64_t rows, cols, features;
  double density;
};

// Every case: m x n with about density * m * n non-zeros, times n x features.
const Case kCases[] = {
    {"1k_1%_f64", 1000, 1000, 64, 0.01},
    {"10k_0.1%_f64", 10000, 10000, 64, 0.001},
    {"10k_1%_f64", 10000, 10000, 64, 0.01},
    {"100k_0.005%_f32", 100000, 100000, 32, 0.00005},
};

struct Matrices {
  Tensor coo, csr, rowptr, col, value, mat;
};

Matrices Make(const Case& c) {
  torch::manual_seed(0);
  const auto nnz = static_cast<int64_t>(c.density * c.rows * c.cols);
  Tensor index = torch::stack({torch::randint(c.rows, {nnz}), torch::randint(c.cols, {nnz})});
  Matrices m;
  m.coo = torch::sparse_coo_tensor(index, torch::rand({nnz}), {c.rows, c.cols}).coalesce();
  m.csr = m.coo.to_sparse_csr();
  m.rowptr = m.csr.crow_indices().to(torch::kLong);
  m.col = m.csr.col_indices().to(torch::kLong);
  m.value = m.csr.values();
  m.mat = torch::rand({c.cols, c.features});
  return m;
}

std::string Name(const Case& c, const char* what) {
  return std::string("sparse/spmm/") + c.name + "/" + what;
}

// Wall-clock time decides (the work runs on 2 threads); the CPU time is the
// whole process's, i.e. the work done, which a loaded machine disturbs less.
template <typename F>
void Add(const std::string& name, F&& fn) {
  benchmark::RegisterBenchmark(name.c_str(), std::forward<F>(fn))
      ->Unit(benchmark::kMicrosecond)
      ->UseRealTime()
      ->MeasureProcessCPUTime();
}

void Register(const Case& c, const Matrices& m, c10::TypedOperatorHandle<SpmmFn> spmm) {
  const std::string baseline = Name(c, "torch_mm_coo");
  const std::string label = "vs=" + baseline;
  Add(baseline, [m](benchmark::State& state) {
    for (auto _ : state) benchmark::DoNotOptimize(torch::mm(m.coo, m.mat));
  });
  Add(Name(c, "torch_mm_csr"), [m, label](benchmark::State& state) {
    for (auto _ : state) benchmark::DoNotOptimize(torch::mm(m.csr, m.mat));
    state.SetLabel(label);
  });
  for (const char* reduce : {"sum", "mean", "max"}) {
    Add(Name(c, reduce), [m, label, reduce, spmm](benchmark::State& state) {
      const std::string r = reduce;
      for (auto _ : state) {
        benchmark::DoNotOptimize(spmm.call(m.rowptr, m.col, m.value, m.mat, r));
      }
      state.SetLabel(label);
    });
  }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  // The sparse plugin's schemas use Optional: the bundled plugins first.
  if (tsb_status* s = tsb_plugin_load_bundled()) {
    std::fprintf(stderr, "cannot load the bundled plugins: %s\n", tsb_status_get_message(s));
    tsb_status_free(s);
    return 1;
  }
  if (tsb_status* s = tsb_plugin_load(BuildPath("TSB_SPARSE_PLUGIN"), nullptr)) {
    std::fprintf(stderr, "cannot load the sparse plugin: %s\n", tsb_status_get_message(s));
    tsb_status_free(s);
    return 1;
  }
  at::set_num_threads(2);
  auto spmm = c10::Dispatcher::singleton()
                  .findSchemaOrThrow("torchsparse::spmm", "")
                  .typed<SpmmFn>();
  for (const Case& c : kCases) {
    Matrices m = Make(c);
    // Same answer, or the ratio means nothing.
    Tensor ours = std::get<0>(spmm.call(m.rowptr, m.col, m.value, m.mat, "sum"));
    if (!torch::allclose(ours, torch::mm(m.coo, m.mat), 1e-4, 1e-4)) {
      std::fprintf(stderr, "%s: spmm and torch::mm disagree\n", c.name);
      return 1;
    }
    Register(c, m, spmm);
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
