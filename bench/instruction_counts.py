#!/usr/bin/env python3
"""Instructions per call of each piece of the generic and static paths of
bench/generic_vs_static_benchmark.cc, counted by callgrind: a measure that,
unlike time, does not move with the machine's load (docs/benchmarks.md,
"Where the time goes").

  /usr/bin/python3 bench/instruction_counts.py build/bench/generic_vs_static_benchmark [--markdown]

Runs the binary once under valgrind --tool=callgrind per row pair (Google
Benchmark mode, a short minimum time), collecting only inside the rows'
loops, and prints, for each function below that ran, its calls and its
inclusive instructions per call. A function inlined into its caller does
not appear (its cost is its caller's).
"""
import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile

# (row filter, loops to collect in, the functions to report, in order)
CASES = [
    ("hana_stats/out", ["GenericOutLoop<tsb_bench::Stats>", "StaticOutLoop<tsb_bench::Stats>"],
     ["GenericOut<tsb_bench::Stats>", "ToIValueOf<tsb_bench::Stats>", "tsb::ToBoundary(c10::IValue, tsb::TypeInfo",
      "Walk(tsb_any*, (anonymous namespace)::Sink&)", "tsb_any_flatten_borrowed", "tsb_any_keep",
      "StaticStatsOut", "StaticStatsRead", "TensorLeaf"]),
    ("tensor_pair/out", ["GenericOutLoop<std::tuple", "StaticOutLoop<std::tuple"],
     ["GenericOut<std::tuple", "ToIValueOf<std::tuple", "tsb_any_flatten_borrowed", "tsb_any_keep",
      "StaticPairOut", "StaticPairRead"]),
    ("dict_str_list_opt/out", ["GenericOutLoop<std::map", "StaticOutLoop<std::map"],
     ["GenericOut<std::map", "ToIValueOf<std::map", "tsb_any_flatten_borrowed", "tsb_any_keep",
      "StaticDictOut", "StaticDictRead"]),
    ("hana_stats/in/(generic|static)/", ["InLoop<"],
     ["GenericRecordIn<tsb_bench::Stats>", "tsb_tuple_new_typed", "::FromIValue", "StaticStatsIn"]),
    ("tensor_pair/in/(generic|static)/", ["InLoop<"],
     ["GenericRecordIn<std::tuple", "tsb_tuple_new_typed", "StaticPairIn"]),
    ("dict_str_list_opt/in/(generic|static)/", ["InLoop<"],
     ["GenericDictUnflatten", "tsb_any_unflatten", "StaticDictIn"]),
]


def parse(path):
    """Calls and inclusive cost per callee name, summed over its callers."""
    names, calls, cost = {}, collections.Counter(), collections.Counter()
    pending = None
    with open(path) as f:
        for line in f:
            m = re.match(r"^(c?fn)=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
            if m:
                kind, ident, name = m.groups()
                if name:
                    names[ident] = name
                pending = names.get(ident, ident) if kind == "cfn" else None
                continue
            m = re.match(r"^calls=(\d+)", line)
            if m and pending:
                calls[pending] += int(m.group(1))
                continue
            if pending and re.match(r"^[+\-\d*]", line):
                parts = line.split()
                if len(parts) >= 2 and parts[1].isdigit():
                    cost[pending] += int(parts[1])
                pending = None
    return calls, cost


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("binary")
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args()
    rows = []
    for row_filter, loops, functions in CASES:
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "cg.out")
            cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"]
            cmd += [f"--toggle-collect=*{loop}*" for loop in loops]
            cmd += [args.binary, f"--benchmark_filter={row_filter}", "--benchmark_min_time=0.02"]
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            calls, cost = parse(out)
        for wanted in functions:
            # The one callee whose name holds `wanted` and was called most.
            found = [k for k in calls if wanted in k]
            if not found:
                continue
            name = max(found, key=lambda k: calls[k])
            rows.append((row_filter, wanted, calls[name], cost[name] / max(calls[name], 1)))
    if args.markdown:
        print("| rows | function | calls | instructions per call |")
        print("|---|---|---|---|")
        for r, fn, n, per in rows:
            print(f"| `{r}` | `{fn}` | {n} | {per:.0f} |")
    else:
        for r, fn, n, per in rows:
            print(f"{r:45} {fn[:60]:60} {n:>9} {per:>9.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
