#include "paired_harness.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>

#include "absl/status/statusor.h"
#include "tsbridge/plugin/errors.hpp"  // TSB_RETURN_IF_ERROR, TSB_ASSIGN_OR_RETURN

namespace tsb_bench {

std::vector<Row>& Rows() {
  static auto& rows = *new std::vector<Row>;
  return rows;
}

void Add(std::string name, std::string baseline, Loop loop) {
  Rows().push_back(Row{std::move(name), std::move(baseline), std::move(loop)});
}

namespace {

// ------------------------------------------- Google Benchmark (default)

// Each row as a Google Benchmark, its baseline in its label for
// bench/ratios.py. The loop runs in batches of 16 (one indirect call per
// batch, on both sides alike).
void RegisterGoogleBenchmarks() {
  constexpr int64_t kBatch = 16;
  for (const Row& row : Rows()) {
    auto* b = benchmark::RegisterBenchmark(
        row.name.c_str(), [loop = row.loop, baseline = row.baseline](benchmark::State& state) {
          while (state.KeepRunningBatch(kBatch)) {
            if (absl::Status st = loop(kBatch); !st.ok()) {
              return state.SkipWithError(st.ToString().c_str());
            }
          }
          if (!baseline.empty()) state.SetLabel("vs=" + baseline);
        });
    b->Unit(benchmark::kMicrosecond)->MinTime(0.2);
  }
}

// --------------------------------------------------- --paired (the figure)

constexpr int kWarmRounds = 10;

// This thread's CPU time: time this thread was preempted does not count.
double ThreadCpuNs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

// ns per iteration of one block of n.
absl::StatusOr<double> Block(const Loop& loop, int64_t n) {
  const double t0 = ThreadCpuNs();
  TSB_RETURN_IF_ERROR(loop(n));
  return (ThreadCpuNs() - t0) / static_cast<double>(n);
}

// The iterations that take about block_ns (the median of 5 estimates).
absl::StatusOr<int64_t> Calibrate(const Loop& loop, double block_ns) {
  int64_t n = 1;
  for (;;) {  // grow until one block is long enough to time
    TSB_ASSIGN_OR_RETURN(double per, Block(loop, n));
    if (per * static_cast<double>(n) >= block_ns / 8 || n >= (int64_t{1} << 30)) break;
    n *= 2;
  }
  std::vector<double> per(5);
  for (double& p : per) {
    TSB_ASSIGN_OR_RETURN(p, Block(loop, n));
  }
  std::sort(per.begin(), per.end());
  return std::max<int64_t>(1, static_cast<int64_t>(block_ns / std::max(per[2], 1e-3)));
}

double Quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double at = q * static_cast<double>(v.size() - 1);
  const size_t lo = static_cast<size_t>(at);
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (at - static_cast<double>(lo));
}

struct PairedRow {
  const Row* row;
  const Row* baseline;
  int64_t n = 0, base_n = 0;
  std::vector<double> ns, base_ns, ratios;
};

int RunPaired(const PairedOptions& o) {
  std::vector<PairedRow> pairs;
  for (const Row& row : Rows()) {
    if (row.baseline.empty() || row.name.find(o.filter) == std::string::npos) continue;
    const Row* base = nullptr;
    for (const Row& b : Rows()) {
      if (b.name == row.baseline) base = &b;
    }
    if (base == nullptr) {
      std::fprintf(stderr, "%s: no baseline %s\n", row.name.c_str(), row.baseline.c_str());
      return 1;
    }
    pairs.push_back(PairedRow{&row, base});
  }
  auto failed = [](const PairedRow& p, const absl::Status& st) {
    std::fprintf(stderr, "%s: %s\n", p.row->name.c_str(), st.ToString().c_str());
    return 1;
  };
  const double block_ns = o.block_ms * 1e6;
  for (PairedRow& p : pairs) {
    absl::StatusOr<int64_t> n = Calibrate(p.row->loop, block_ns);
    absl::StatusOr<int64_t> base_n = Calibrate(p.baseline->loop, block_ns);
    if (!n.ok()) return failed(p, n.status());
    if (!base_n.ok()) return failed(p, base_n.status());
    p.n = *n;
    p.base_n = *base_n;
  }
  // Round r times every pair once, the two sides back to back, in the
  // order AB on even rounds and BA on odd ones.
  for (int r = 0; r < kWarmRounds + o.rounds; ++r) {
    for (PairedRow& p : pairs) {
      double t[2];
      for (int k = 0; k < 2; ++k) {
        const bool generic = (k == 0) == (r % 2 == 0);
        absl::StatusOr<double> ns = generic ? Block(p.row->loop, p.n)
                                            : Block(p.baseline->loop, p.base_n);
        if (!ns.ok()) return failed(p, ns.status());
        t[generic ? 0 : 1] = *ns;
      }
      if (r < kWarmRounds) continue;
      p.ns.push_back(t[0]);
      p.base_ns.push_back(t[1]);
      p.ratios.push_back(t[0] / t[1]);
    }
  }
  for (const PairedRow& p : pairs) {  // one line per pair, for the parent
    std::printf("PAIR %s %s %.6g %.6g %.6g %.6g %.6g\n", p.row->name.c_str(),
                p.baseline->name.c_str(), Quantile(p.ratios, 0.5), Quantile(p.ratios, 0.25),
                Quantile(p.ratios, 0.75), Quantile(p.ns, 0.5), Quantile(p.base_ns, 0.5));
  }
  return 0;
}

}  // namespace

absl::Status StatusOf(tsb_status* s) {
  if (s == nullptr) return absl::OkStatus();
  absl::Status st = absl::InternalError(tsb_status_get_message(s));
  tsb_status_free(s);
  return st;
}

int RunRows(const PairedOptions& o) {
  if (o.on) return RunPaired(o);
  RegisterGoogleBenchmarks();
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}

// Each process a --paired_child; the rows in the order of the first.
int RunPairedProcesses(const PairedOptions& o) {
  char self[4096];  // this binary's path: in the shell, /proc/self is the shell
  const ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0) return std::perror("/proc/self/exe"), 1;
  self[n] = '\0';
  struct Result {
    std::string name, baseline;
    std::vector<double> ratio, p25, p75, ns, base_ns;
  };
  std::vector<Result> results;
  char command[4096];
  std::snprintf(command, sizeof(command),
                "'%s' --paired=%d --paired_child --paired_block_ms=%g '--paired_filter=%s'", self,
                o.rounds, o.block_ms, o.filter.c_str());
  for (int i = 0; i < o.processes; ++i) {
    FILE* child = popen(command, "r");
    if (child == nullptr) return std::perror("popen"), 1;
    char name[256], baseline[256];
    double v[5];
    char line[1024];
    while (std::fgets(line, sizeof(line), child) != nullptr) {
      if (std::sscanf(line, "PAIR %255s %255s %lf %lf %lf %lf %lf", name, baseline, &v[0],
                      &v[1], &v[2], &v[3], &v[4]) != 7) {
        continue;
      }
      auto it = std::find_if(results.begin(), results.end(),
                             [&](const Result& r) { return r.name == name; });
      if (it == results.end()) it = results.insert(results.end(), Result{name, baseline});
      it->ratio.push_back(v[0]);
      it->p25.push_back(v[1]);
      it->p75.push_back(v[2]);
      it->ns.push_back(v[3]);
      it->base_ns.push_back(v[4]);
    }
    if (int status = pclose(child); status != 0) {
      std::fprintf(stderr, "process %d of %d failed (status %d): %s\n", i + 1, o.processes,
                   status, command);
      return 1;
    }
  }
  std::printf(o.markdown ? "| benchmark | baseline | ns | baseline ns | ratio | p25–p75 | "
                           "processes' medians |\n|---|---|---|---|---|---|---|\n"
                         : "%-38s %-36s %9s %12s %7s  %-13s  %s\n",
              "benchmark", "baseline", "ns", "baseline ns", "ratio", "p25-p75",
              "processes' medians");
  for (const Result& r : results) {
    auto [low, high] = std::minmax_element(r.ratio.begin(), r.ratio.end());
    std::printf(o.markdown ? "| %s | %s | %.1f | %.1f | %.3f | %.3f–%.3f | %.3f–%.3f |\n"
                           : "%-38s %-36s %9.1f %12.1f %7.3f  %.3f-%.3f    %.3f-%.3f\n",
                r.name.c_str(), r.baseline.c_str(), Quantile(r.ns, 0.5),
                Quantile(r.base_ns, 0.5), Quantile(r.ratio, 0.5), Quantile(r.p25, 0.5),
                Quantile(r.p75, 0.5), *low, *high);
  }
  std::printf("%s%d processes × %d rounds of %.2f ms blocks per side, thread CPU time; "
              "ratio: the median of the processes' median per-block ratios; p25–p75: the "
              "median of their quartiles; then the lowest and highest process median\n",
              o.markdown ? "\n" : "", o.processes, o.rounds, o.block_ms);
  return 0;
}

// Takes --paired[=ROUNDS], --paired_processes=N, --paired_child,
// --paired_block_ms=MS, --paired_markdown and --paired_filter=TEXT out of
// argv (Google Benchmark gets the rest).
PairedOptions ParsePaired(int* argc, char** argv) {
  PairedOptions o;
  int kept = 1;
  for (int i = 1; i < *argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* flag) -> const char* {
      const size_t len = std::strlen(flag);
      return a.compare(0, len, flag) == 0 && a.size() > len && a[len] == '='
                 ? argv[i] + len + 1
                 : nullptr;
    };
    if (a == "--paired") {
      o.on = true;
    } else if (const char* v = value("--paired")) {
      o.on = true;
      o.rounds = std::max(1, std::atoi(v));
    } else if (const char* v = value("--paired_block_ms")) {
      o.block_ms = std::max(0.01, std::atof(v));
    } else if (const char* v = value("--paired_processes")) {
      o.processes = std::max(1, std::atoi(v));
    } else if (a == "--paired_child") {
      o.child = true;
    } else if (a == "--paired_markdown") {
      o.markdown = true;
    } else if (const char* v = value("--paired_filter")) {
      o.filter = v;
    } else {
      argv[kept++] = argv[i];
    }
  }
  *argc = kept;
  return o;
}

}  // namespace tsb_bench
