// Graph sampling: relabel and sample_adj, in the manner of torch_sparse.
// Both are sequential by nature (a node map; one random stream), so they
// run on one thread; the random stream makes a seeded draw reproducible.
#include <algorithm>
#include <mutex>
#include <random>
#include <vector>

#include <ATen/CPUGeneratorImpl.h>
#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>

#include "plugins/sparse/sparse.h"

namespace torchsparse {
namespace {

uint64_t SeedOf(c10::optional<int64_t> seed) {
  if (seed.has_value()) return static_cast<uint64_t>(*seed);
  at::Generator gen = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(gen.mutex());
  return gen.get<at::CPUGeneratorImpl>()->random64();
}

// k distinct offsets in [0, n), ascending (Floyd's algorithm: k draws).
void Distinct(int64_t n, int64_t k, std::mt19937_64& rng, std::vector<int64_t>& out) {
  absl::flat_hash_set<int64_t> chosen;
  for (int64_t j = n - k; j < n; ++j) {
    const int64_t t = std::uniform_int_distribution<int64_t>(0, j)(rng);
    chosen.insert(chosen.contains(t) ? j : t);
  }
  out.assign(chosen.begin(), chosen.end());
  std::sort(out.begin(), out.end());
}

}  // namespace

std::tuple<Tensor, Tensor> relabel(const Tensor& col, const Tensor& idx) {
  CheckIndex("relabel", "col", col);
  CheckIndex("relabel", "idx", idx);
  const Tensor c = col.contiguous(), nodes = idx.contiguous();
  const int64_t* cp = c.data_ptr<int64_t>();
  const int64_t* ip = nodes.data_ptr<int64_t>();
  absl::flat_hash_map<int64_t, int64_t> number;
  std::vector<int64_t> node_of(ip, ip + nodes.numel());
  for (int64_t i = 0; i < nodes.numel(); ++i) {
    TORCH_CHECK(number.emplace(ip[i], i).second,
                "torchsparse::relabel(): argument 'idx': expected distinct nodes, got ", ip[i],
                " at [", number[ip[i]], "] and again at [", i, "]");
  }
  Tensor out = at::empty_like(c);
  int64_t* op = out.data_ptr<int64_t>();
  for (int64_t e = 0; e < c.numel(); ++e) {
    auto [it, fresh] = number.emplace(cp[e], static_cast<int64_t>(node_of.size()));
    if (fresh) node_of.push_back(cp[e]);
    op[e] = it->second;
  }
  return {out, at::tensor(node_of, idx.options())};
}

std::tuple<Tensor, Tensor, Tensor> sample_adj(const Tensor& rowptr, const Tensor& col,
                                              const Tensor& idx, int64_t num_neighbors,
                                              bool replace, c10::optional<int64_t> seed) {
  CheckIndex("sample_adj", "col", col);
  CheckPtr("sample_adj", "rowptr", rowptr, col.numel());
  CheckIndex("sample_adj", "idx", idx);
  CheckRange("sample_adj", "idx", idx, rowptr.numel() - 1);
  const Tensor p = rowptr.contiguous(), c = col.contiguous(), nodes = idx.contiguous();
  const int64_t* pp = p.data_ptr<int64_t>();
  const int64_t* cp = c.data_ptr<int64_t>();
  const int64_t* ip = nodes.data_ptr<int64_t>();
  std::mt19937_64 rng(SeedOf(seed));

  std::vector<int64_t> out_ptr{0}, out_col, out_edge, offsets;
  for (int64_t i = 0; i < nodes.numel(); ++i) {
    const int64_t begin = pp[ip[i]], degree = pp[ip[i] + 1] - begin;
    if (num_neighbors < 0 || (!replace && degree <= num_neighbors)) {
      offsets.resize(degree);
      for (int64_t j = 0; j < degree; ++j) offsets[j] = j;
    } else if (replace) {
      offsets.clear();
      for (int64_t j = 0; degree > 0 && j < num_neighbors; ++j) {
        offsets.push_back(std::uniform_int_distribution<int64_t>(0, degree - 1)(rng));
      }
    } else {
      Distinct(degree, num_neighbors, rng, offsets);
    }
    for (int64_t j : offsets) {
      out_col.push_back(cp[begin + j]);
      out_edge.push_back(begin + j);
    }
    out_ptr.push_back(static_cast<int64_t>(out_col.size()));
  }
  const auto options = idx.options();
  return {at::tensor(out_ptr, options), at::tensor(out_col, options),
          at::tensor(out_edge, options)};
}

}  // namespace torchsparse
