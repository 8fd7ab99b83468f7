"""Time from process start to the first `tsb run` result, in new processes.

Two modules are scripted and saved here by PyTorch: `tensor.pt`, whose
forward(Tensor) -> Tensor needs no bundled plugin, and `tuple.pt`, whose
forward(Tensor) -> Tuple[Tensor, Tensor] needs the tuple plugin. Each
`tsb run MODULE forward --args [x]` is one new process, timed from spawn to
exit (the result printed): wall time (time.perf_counter) and the child's
CPU time, user + system (os.wait4). The configurations given with --tsb
take turns, run after run, so that each sees about the same machine load;
the figures are the best and the median of --runs runs.

A configuration is LABEL=COMMAND, where COMMAND is the tsb binary, possibly
preceded by environment settings (for instance a "before" build copied
elsewhere: 'before=env LD_LIBRARY_PATH=/tmp/before/lib /tmp/before/tsb').
The first configuration is the baseline of the ratio columns.

Usage: /usr/bin/python3 bench/process_start_bench.py --tsb main=build/bin/tsb
       [--tsb before=...] [--runs 15] [--markdown]
"""
import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Tuple

import torch


class TensorOnly(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + 1


class TupleOut(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        return x + 1, x * 2


ARGS = json.dumps([{"dtype": "float32", "shape": [2], "data": [1, 2]}])


def run_once(command, module):
    """One `tsb run`: (wall s, cpu s) of the child, from spawn to exit."""
    start = time.perf_counter()
    child = subprocess.Popen(command + ["run", module, "forward", "--args", ARGS],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = child.stdout.read(), child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0 or not out.strip():
        sys.exit(f"{shlex.join(command)} run {module} failed: {err.decode()}")
    return wall, usage.ru_utime + usage.ru_stime


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tsb", action="append", required=True, metavar="LABEL=COMMAND")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--markdown", action="store_true")
    options = parser.parse_args()
    configs = []
    for spec in options.tsb:
        label, _, command = spec.partition("=")
        configs.append((label, shlex.split(command)))

    with tempfile.TemporaryDirectory() as tmp:
        modules = {}
        for name, cls in (("tensor", TensorOnly), ("tuple", TupleOut)):
            modules[name] = os.path.join(tmp, name + ".pt")
            torch.jit.save(torch.jit.script(cls()), modules[name])
        times = {(label, name): [] for label, _ in configs for name in modules}
        for _ in range(options.runs):
            for name, module in modules.items():
                for label, command in configs:
                    times[(label, name)].append(run_once(command, module))

    base = configs[0][0]
    rows = []
    for name in modules:
        best_base = min(t[0] for t in times[(base, name)]), min(t[1] for t in times[(base, name)])
        for label, _ in configs:
            walls = [t[0] for t in times[(label, name)]]
            cpus = [t[1] for t in times[(label, name)]]
            rows.append((f"{name}.pt", label, min(walls) * 1e3, statistics.median(walls) * 1e3,
                         min(cpus) * 1e3, statistics.median(cpus) * 1e3,
                         min(walls) / best_base[0], min(cpus) / best_base[1]))
    header = ("module", "tsb", "wall best (ms)", "wall median (ms)", "CPU best (ms)",
              "CPU median (ms)", f"wall best ÷ {base}", f"CPU best ÷ {base}")
    if options.markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for r in rows:
            print(f"| {r[0]} | {r[1]} | {r[2]:.1f} | {r[3]:.1f} | {r[4]:.1f} | {r[5]:.1f} | "
                  f"{r[6]:.3f} | {r[7]:.3f} |")
    else:
        for r in rows:
            print(f"{r[0]:10} {r[1]:10} wall {r[2]:7.1f} (median {r[3]:7.1f}) ms  "
                  f"cpu {r[4]:7.1f} (median {r[5]:7.1f}) ms  ratio {r[6]:.3f} / {r[7]:.3f}")
    print(f"{options.runs} runs per row, taking turns; machine load: "
          f"{open('/proc/loadavg').read().split()[:3]}", file=sys.stderr)


if __name__ == "__main__":
    main()
