// The plugin bench/generic_vs_static_benchmark.cc loads next to the bundled
// ones: it registers the Hana struct that benchmark converts, in the one line
// a binding author writes, and the functions of bench/bench_functions.h that
// it calls through tsb_function_call. tsbridge.tensor_pair comes from
// plugins/tuple.
#include <cstdint>

#include <ATen/core/Tensor.h>
#include <boost/hana/adapt_struct.hpp>

#include "bench_functions.h"
#include "tsbridge/plugin/codecs/all.hpp"
#include "tsbridge/plugin/plugin.hpp"

namespace tsb_bench {

// Keep in step with the same struct in generic_vs_static_benchmark.cc, which
// checks at start-up that the registered NamedTuple has its fields and types.
struct Stats {
  int64_t count = 0;
  double mean = 0;
  at::Tensor values;
};

}  // namespace tsb_bench

BOOST_HANA_ADAPT_STRUCT(tsb_bench::Stats, count, mean, values);

TSB_PLUGIN("bench_records", "0.1") {
  r.type<tsb_bench::Stats>();  // NamedTuple tsb_bench.Stats(count, mean, values)
  r.function("tsb_bench::add", &tsb_bench::Add, {"a", "b"});
  // A std::tuple result declared as the record: it keeps the field names.
  r.function("tsb_bench::sum_and_diff", &tsb_bench::SumAndDiff, {"a", "b"},
             "tsbridge.tensor_pair");
}
