/* The C side of bench/r_host_bench.R: the same module source, the same two
 * calls (a no-op method and a method of six scalars) through the C ABI by
 * name (tsb_module_call), and the no-op by its index (tsb_module_call_method,
 * as the R host calls), timed in batches; prints the median nanoseconds per
 * call of each as "noop <ns>", "six <ns>" and "noop_by_index <ns>".
 * Usage: r_host_c_baseline SOURCE_FILE [CALLS] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "c_bench_util.h"
#include "tsbridge/tsbridge.h"

/* Median over 21 batches of ns per call of `method` with `args`: by name,
 * or by its index when `index` is not negative. */
static int median_ns(tsb_module* m, const char* method, long index, const tsb_call_args* args,
                     long calls, double* out) {
  double batches[21];
  for (int b = 0; b < 21; ++b) {
    double start = bench_now_ns(CLOCK_PROCESS_CPUTIME_ID);
    for (long i = 0; i < calls; ++i) {
      tsb_any result;
      tsb_status* s = index < 0 ? tsb_module_call(m, method, args, &result)
                                : tsb_module_call_method(m, (size_t)index, args, &result);
      if (s) return bench_fail(s);
      tsb_any_release(&result);
    }
    batches[b] = (bench_now_ns(CLOCK_PROCESS_CPUTIME_ID) - start) / (double)calls;
  }
  *out = bench_median(batches, 21);
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s SOURCE_FILE [CALLS]\n", argv[0]);
    return 2;
  }
  long calls = argc > 2 ? atol(argv[2]) : 20000;
  FILE* f = fopen(argv[1], "rb");
  if (!f) return 2;
  char source[65536];
  size_t n = fread(source, 1, sizeof source - 1, f);
  fclose(f);
  source[n] = '\0';
  tsb_module* m = NULL;
  tsb_status* s = tsb_module_compile(source, &m);
  if (s) return bench_fail(s);
  long noop_index = -1;
  size_t num_methods = 0;
  if ((s = tsb_module_count_methods(m, &num_methods))) return bench_fail(s);
  for (size_t i = 0; i < num_methods && noop_index < 0; ++i) {
    tsb_schema_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    if ((s = tsb_module_get_method(m, i, &info))) return bench_fail(s);
    if (strcmp(info.name, "noop") == 0) noop_index = (long)i;
  }
  if (noop_index < 0) {
    fprintf(stderr, "expected a method noop in %s, found none\n", argv[1]);
    return 1;
  }
  double noop = 0, six = 0, noop_by_index = 0;
  tsb_call_args none = tsb_call_args_make(NULL, 0);
  tsb_any six_args[6] = {tsb_any_int(1), tsb_any_float(2.0), tsb_any_bool(true),
                         tsb_any_borrowed_str("x"), tsb_any_int(3), tsb_any_float(4.0)};
  tsb_call_args six_call = tsb_call_args_make(six_args, 6);
  if (median_ns(m, "noop", -1, &none, calls, &noop)) return 1;
  if (median_ns(m, "six", -1, &six_call, calls, &six)) return 1;
  if (median_ns(m, "noop", noop_index, &none, calls, &noop_by_index)) return 1;
  printf("noop %.1f\nsix %.1f\nnoop_by_index %.1f\n", noop, six, noop_by_index);
  tsb_module_free(m);
  return 0;
}
