// The rows of a ratio benchmark and the two ways of timing them
// (bench/generic_vs_static_benchmark.cc; docs/benchmarks.md, "Generic ÷
// static, paired"): as Google Benchmark rows for bench/ratios.py, or
// --paired, each row against its baseline in alternating blocks of thread
// CPU time, over several fresh processes.
#ifndef TSBRIDGE_BENCH_PAIRED_HARNESS_H_
#define TSBRIDGE_BENCH_PAIRED_HARNESS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "tsbridge/tsbridge.h"

namespace tsb_bench {

// One side of a row: runs its path n times; the first error stops it.
using Loop = std::function<absl::Status(int64_t n)>;

// A timed row. A row with a baseline is one side of a pair; the baseline
// is the other side.
struct Row {
  std::string name, baseline;
  Loop loop;
};

// A status from the host ABI as an absl::Status (freed; OK for nullptr).
absl::Status StatusOf(tsb_status* s);

// Every row added so far, in order.
std::vector<Row>& Rows();
void Add(std::string name, std::string baseline, Loop loop);

// --paired and its options (the figure of record).
struct PairedOptions {
  bool on = false;
  int rounds = 100;        // timed rounds per process (after kWarmRounds)
  int processes = 5;       // fresh processes, each its own address layout
  bool child = false;      // one of them: prints its medians for the parent
  double block_ms = 1.0;   // CPU time of one block of one side
  bool markdown = false;
  std::string filter;      // a substring of the row name; empty: all
};

// Takes the --paired* options out of argv.
PairedOptions ParsePaired(int* argc, char** argv);

// The rows, as o says: one process's paired timing of every row with a
// baseline (--paired, printing its medians for the parent when o.child), or
// Google Benchmark's run of them all.
int RunRows(const PairedOptions& o);

// The pairs' medians over o.processes fresh processes of this binary: what
// a --paired run that is not a child does, before any set-up.
int RunPairedProcesses(const PairedOptions& o);

}  // namespace tsb_bench

#endif  // TSBRIDGE_BENCH_PAIRED_HARNESS_H_
