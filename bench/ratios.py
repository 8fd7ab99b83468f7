#!/usr/bin/python3
"""Prints the ratio of every benchmark to its baseline, from Google Benchmark
JSON files (--benchmark_out=FILE --benchmark_out_format=json).

A benchmark names its baseline in its label, "vs=<baseline name>"; both must
come from the same file, i.e. the same run, so that machine and load cancel
out. With --benchmark_repetitions the median aggregate is used, otherwise the
median of the plain runs. When every repetition is in the file (no
--benchmark_report_aggregates_only; scripts/bench.sh also interleaves them
with --benchmark_enable_random_interleaving), repetition i of a benchmark is
paired with repetition i of its baseline, and the spread column gives the
25th to 75th percentile of those per-pair ratios: how far one figure can be
trusted.

  /usr/bin/python3 bench/ratios.py [--time cpu_time|real_time] [--markdown] FILE...

Runs side by side (one ratio column per run, e.g. per LibTorch release):

  /usr/bin/python3 bench/ratios.py --markdown --side-by-side \
      "Debian 12=build/bench-results" "Debian 13=build-trixie/bench-results" \
      "Debian testing=build-forky/bench-results"
"""
import argparse
import glob
import json
import os
import statistics
import sys

# Segments Google Benchmark appends to a name for per-benchmark settings.
_SETTINGS = ("min_time:", "min_warmup_time:", "iterations:", "repeats:",
             "threads:", "real_time", "process_time", "manual_time")
_TO_US = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}


def base_name(run_name):
    return "/".join(p for p in run_name.split("/") if not p.startswith(_SETTINGS))


def load(path, field):
    """{name: (time in us, label, [time of each repetition])} for one run."""
    with open(path) as f:
        data = json.load(f)
    samples, medians, labels = {}, {}, {}
    for b in data["benchmarks"]:
        if b.get("error_occurred"):
            sys.exit(f"{path}: {b['name']} failed: {b.get('error_message')}")
        name = base_name(b.get("run_name", b["name"]))
        value = b[field] * _TO_US[b["time_unit"]]
        labels[name] = b.get("label", "")
        if b.get("run_type") == "aggregate":
            if b.get("aggregate_name") == "median":
                medians[name] = value
        else:
            samples.setdefault(name, []).append(value)
    return {n: (medians[n] if n in medians else statistics.median(samples[n]), labels[n],
                samples.get(n, [])) for n in labels}


def spread(values, baselines):
    """'p25–p75' of the per-repetition ratios, or '' without repetitions."""
    pairs = [v / b for v, b in zip(values, baselines)]
    if len(pairs) < 4 or len(values) != len(baselines):
        return ""
    q = statistics.quantiles(pairs, n=4)
    return f"{q[0]:.2f}–{q[2]:.2f}"


def ratios(files, field):
    """[(name, time, baseline, baseline time, ratio, spread)] over FILES."""
    rows = []
    for path in files:
        results = load(path, field)
        for name, (value, label, reps) in results.items():
            if not (label or "").startswith("vs="):
                continue
            baseline = label[3:]
            if baseline not in results:
                sys.exit(f"{path}: baseline {baseline!r} of {name!r} was not run")
            base_value, _, base_reps = results[baseline]
            rows.append((name, value, baseline, base_value, value / base_value,
                         spread(reps, base_reps)))
    return rows


def side_by_side(runs, field, markdown):
    """One ratio column per LABEL=DIR run, rows joined by benchmark name."""
    columns, names = [], []
    for run in runs:
        label, _, directory = run.partition("=")
        if not directory or not os.path.isdir(directory):
            sys.exit(f"--side-by-side wants LABEL=DIR with DIR holding *.json, got {run!r}")
        column = {}
        for name, _, baseline, _, ratio, _ in ratios(sorted(glob.glob(f"{directory}/*.json")),
                                                     field):
            column[name] = (baseline, ratio)
            if name not in names:
                names.append(name)
        columns.append((label, column))
    header = ("benchmark", "baseline", *(f"ratio, {label}" for label, _ in columns))
    cells = []
    for name in names:
        baseline = next(c[name][0] for _, c in columns if name in c)
        cells.append((name, baseline,
                       *(f"{c[name][1]:.3f}" if name in c else "–" for _, c in columns)))
    print_table(header, cells, markdown, text_columns=(0, 1))


def print_table(header, cells, markdown, text_columns=(0, 2)):
    if markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for c in cells:
            print("| " + " | ".join(c) + " |")
        return
    widths = [max(len(x) for x in col) for col in zip(header, *cells)]
    for c in [header, *cells]:
        print("  ".join(x.ljust(w) if i in text_columns else x.rjust(w)
                        for i, (x, w) in enumerate(zip(c, widths))))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*")
    parser.add_argument("--time", default="cpu_time", choices=["cpu_time", "real_time"])
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--side-by-side", nargs="+", metavar="LABEL=DIR")
    args = parser.parse_args()
    if args.side_by_side:
        side_by_side(args.side_by_side, args.time, args.markdown)
        return
    if not args.files:
        parser.error("give FILE... or --side-by-side LABEL=DIR...")
    rows = ratios(args.files, args.time)
    header = ("benchmark", "time (us)", "baseline", "baseline (us)", "ratio", "spread")
    cells = [(n, f"{v:.3f}", b, f"{bv:.3f}", f"{r:.3f}", sp) for n, v, b, bv, r, sp in rows]
    print_table(header, cells, args.markdown)


if __name__ == "__main__":
    main()
