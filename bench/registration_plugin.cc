// The plugin that bench/plugin_load_benchmark.cc loads over and over: a
// torchsparse-sized registration (docs/plugins.md), 5 named record types and 12
// functions, written with the SDK as a binding author would (TSB_PLUGIN,
// r.type, r.function), with realistic signatures: Tensor, Optional, List,
// Dict, Union, named records.
//
// One difference from a real plugin: its name is the file name it was
// loaded from ("reg_0007.so" -> plugin "reg_0007", types "reg_0007.coo",
// functions "reg_0007::spmm"), read once with dladdr. The core refuses a
// second plugin, type or function of the same name, so this is what lets the
// benchmark load many byte-identical copies of one library in one process
// and time each load. Reading the name costs one dladdr (about a
// microsecond), inside the timed load: a bias against the plugin, not for it.
// The functions are never called; only their registration is measured.
#include <dlfcn.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include <ATen/ATen.h>
#include <boost/hana/adapt_struct.hpp>

#include "tsbridge/plugin/codecs/all.hpp"
#include "tsbridge/plugin/plugin.hpp"

namespace tsb_bench_registration {

// A record returned by value, as a Hana struct (NamedTuple "<plugin>.Stats").
struct Stats {
  int64_t count = 0;
  double mean = 0;
  at::Tensor values;
};

}  // namespace tsb_bench_registration

BOOST_HANA_ADAPT_STRUCT(tsb_bench_registration::Stats, count, mean, values);

namespace {

using at::Tensor;
using tsb_bench_registration::Stats;

// The plugin's name: its file's base name without ".so", with every character
// a qualified name cannot hold turned into '_'.
const char* OwnName() {
  static const std::string name = [] {
    Dl_info info{};
    std::string file = dladdr(reinterpret_cast<void*>(&OwnName), &info) != 0 &&
                               info.dli_fname != nullptr
                           ? info.dli_fname
                           : "bench_registration";
    file = file.substr(file.find_last_of('/') + 1);
    file = file.substr(0, file.find('.'));
    for (char& c : file) {
      const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                      (c >= '0' && c <= '9') || c == '_';
      if (!ok) c = '_';
    }
    if (file.empty() || (file[0] >= '0' && file[0] <= '9')) file = "p" + file;
    return file;
  }();
  return name.c_str();
}

// Functions with torchsparse's shapes of signature. Registration only needs
// their types; the bodies are trivial.
Tensor SpmmSum(const Tensor& rowptr, const Tensor& col, const std::optional<Tensor>& value,
               const Tensor& mat) {
  return mat;
}
std::tuple<Tensor, std::optional<Tensor>> SpmmReduce(const Tensor& rowptr, const Tensor& col,
                                                     const std::optional<Tensor>& value,
                                                     const Tensor& mat,
                                                     const std::string& reduce) {
  return {mat, std::nullopt};
}
Tensor Partition(const Tensor& rowptr, const Tensor& col, const std::optional<Tensor>& value,
                 int64_t num_parts, bool recursive) {
  return col;
}
std::vector<Tensor> EgoKHop(const Tensor& rowptr, const Tensor& col, const Tensor& idx,
                            int64_t depth, int64_t num_neighbors, bool replace) {
  return {rowptr, col, idx};
}
std::map<std::string, Tensor> NeighborSample(const std::map<std::string, Tensor>& colptr,
                                             const std::vector<int64_t>& num_samples,
                                             bool replace) {
  return colptr;
}
std::map<std::string, int64_t> Count(const std::vector<std::string>& words) { return {}; }
std::variant<int64_t, std::string> Sign(int64_t x) { return x; }
std::tuple<Tensor, Tensor> Ind2Ptr(const Tensor& ind, int64_t m) { return {ind, ind}; }

// The functions whose signatures name the plugin's own records go through
// the raw slot: their type strings depend on the plugin's name.
tsb_status* NotCalled(void*, void*) {
  return tsb_status_new(TSB_ERR_UNSUPPORTED, "benchmark fixture: not callable");
}

}  // namespace

TSB_PLUGIN(OwnName(), "0.1") {
  const std::string p = OwnName();
  const std::string pair = p + ".tensor_pair", triple = p + ".tensor_triple",
                    coo = p + ".coo", stats = p + ".Stats", part = p + ".partition_info";
  const std::string stats_annotation(tsb::Codec<Stats>::tuple_annotation());

  r.type(pair.c_str(), "Tuple[Tensor, Tensor]", {"first", "second"});
  r.type(triple.c_str(), "Tuple[Tensor, Tensor, Optional[Tensor]]",
         {"first", "second", "third"});
  r.type(coo.c_str(), "Tuple[Tensor, Tensor, Optional[Tensor], List[int]]",
         {"row", "col", "value", "sparse_sizes"});
  r.type(stats.c_str(), stats_annotation.c_str(), {"count", "mean", "values"});
  r.type(part.c_str(), "Tuple[Tensor, Tensor, Dict[str, Tensor], Optional[List[int]]]",
         {"rowptr", "col", "meta", "parts"});

  auto fn = [&p](const char* short_name) { return p + "::" + short_name; };
  r.function(fn("spmm_sum").c_str(), &SpmmSum, {"rowptr", "col", "value", "mat"});
  r.function(fn("spmm_reduce").c_str(), &SpmmReduce, {"rowptr", "col", "value", "mat", "reduce"});
  r.function(fn("partition").c_str(), &Partition,
             {"rowptr", "col", "value", "num_parts", "recursive"});
  r.function(fn("ego_k_hop_sample_adj").c_str(), &EgoKHop,
             {"rowptr", "col", "idx", "depth", "num_neighbors", "replace"});
  r.function(fn("neighbor_sample").c_str(), &NeighborSample, {"colptr", "num_samples", "replace"});
  r.function(fn("count").c_str(), &Count, {"words"});
  r.function(fn("sign").c_str(), &Sign, {"x"});
  r.function(fn("ind2ptr").c_str(), &Ind2Ptr, {"ind", "m"});
  r.function_raw(fn("relabel").c_str(), {"col", "idx"}, {"Tensor", "Tensor"}, pair.c_str(),
                 &NotCalled, nullptr, nullptr);
  r.function_raw(fn("saint_subgraph").c_str(), {"idx", "rowptr", "row", "col"},
                 {"Tensor", "Tensor", "Tensor", "Tensor"}, triple.c_str(), &NotCalled, nullptr,
                 nullptr);
  r.function_raw(fn("to_csr").c_str(), {"coo", "num_nodes"}, {coo.c_str(), "Optional[int]"},
                 part.c_str(), &NotCalled, nullptr, nullptr);
  r.function_raw(fn("stats").c_str(), {"values"}, {"Tensor"}, stats.c_str(), &NotCalled,
                 nullptr, nullptr);
}
