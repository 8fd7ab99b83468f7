/* What the C baselines of bench/ share: a clock read, the median of batch
 * times and the report of a failed call. Each baseline picks its clock: the
 * serve baseline wall time (the HTTP side it is compared with is wall time),
 * the R baseline CPU time (its figures come from a shared machine). */
#ifndef TSBRIDGE_BENCH_C_BENCH_UTIL_H_
#define TSBRIDGE_BENCH_C_BENCH_UTIL_H_

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tsbridge/tsbridge.h"

static inline double bench_now_ns(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static inline int bench_compare_doubles(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* The median of n values, sorting them in place. */
static inline double bench_median(double* values, size_t n) {
  qsort(values, n, sizeof(double), bench_compare_doubles);
  return values[n / 2];
}

/* Prints and frees a failed call's status; the process's exit code. */
static inline int bench_fail(tsb_status* s) {
  fprintf(stderr, "%s\n", tsb_status_get_message(s));
  tsb_status_free(s);
  return 1;
}

#endif /* TSBRIDGE_BENCH_C_BENCH_UTIL_H_ */
