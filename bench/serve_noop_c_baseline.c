/* The C side of bench/serve_bench.py's no-op figure: the call tsb serve makes
 * for a no-op infer, made through the C ABI with no HTTP and no JSON. Loads
 * MODEL (a TorchScript forward(x: Tensor) -> Tensor returning x), reads the
 * request's tensor once (tsb_json_read, outside the timing) and times
 * tsb_module_call(module, "forward", x) in batches; prints the median
 * wall-clock nanoseconds per call over 21 batches as "call_ns <ns>".
 * Usage: serve_noop_c_baseline MODEL [CALLS] [TENSOR_JSON] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "c_bench_util.h"
#include "tsbridge/tsbridge.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s MODEL [CALLS] [TENSOR_JSON]\n", argv[0]);
    return 2;
  }
  const long calls = argc > 2 ? atol(argv[2]) : 20000;
  const char* tensor = argc > 3 ? argv[3]
                                : "{\"dtype\": \"float32\", \"shape\": [1, 4], \"data\": [1, 2, 3, 4]}";
  tsb_module* m = NULL;
  tsb_status* s = tsb_module_load(argv[1], &m);
  if (s) return bench_fail(s);
  tsb_any x;
  if ((s = tsb_json_read(tensor, TSB_TYPE_TENSOR, &x))) return bench_fail(s);
  tsb_call_args args = tsb_call_args_make(&x, 1);
  double batches[21];
  for (int b = 0; b < 21; ++b) {
    const double start = bench_now_ns(CLOCK_MONOTONIC);
    for (long i = 0; i < calls; ++i) {
      tsb_any result;
      if ((s = tsb_module_call(m, "forward", &args, &result))) return bench_fail(s);
      tsb_any_release(&result);
    }
    batches[b] = (bench_now_ns(CLOCK_MONOTONIC) - start) / (double)calls;
  }
  printf("call_ns %.1f\n", bench_median(batches, 21));
  tsb_any_release(&x);
  tsb_module_free(m);
  size_t live = 0;
  if ((s = tsb_handle_count(&live))) return bench_fail(s);
  if (live != 0) {
    fprintf(stderr, "%zu handles live at the end\n", live);
    return 1;
  }
  return 0;
}
