"""The Python host against PyTorch's own TorchScript calls, in one process.

One module is scripted here and saved; PyTorch calls it through
torch.jit.load, tsbridge through tsbridge.load, on the same inputs. Each
figure is a ratio, tsbridge time / PyTorch time (lower is better), from
timeit: the best of REPEAT runs of NUMBER calls each, for both sides,
the two sides' runs interleaved, in CPU time (time.process_time). The
call-overhead rows (a no-op forward(Tensor) -> Tensor, a method of 6
scalars) are measured as nanobind and tvm-ffi report theirs: time per call
of a bound method that does nothing, the callee's own work being nil.

Tensors cross through the torch fast path when the companion tsbridge._torch
is built, else through torch's DLPack C exchange API (torch 2.10+), else as
DLPack capsules; TSB_PYTHON_NO_TORCH_FASTPATH=1 turns the first off,
TSB_PYTHON_NO_DLPACK_EXCHANGE=1 the second, and --both runs the other
paths' figures too (each in a child process) for one table.

Usage: PYTHONPATH=build/python /usr/bin/python3 bench/python_host_bench.py
       [--markdown] [--both] [--only METHOD]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import timeit
from typing import Dict, List, NamedTuple, Tuple

import torch

import tsbridge


class Out(NamedTuple):
    values: torch.Tensor
    count: int
    scale: float
    label: str


class Bench(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> Out:
        return Out(x, 3, 0.5, "out")

    @torch.jit.export
    def ints(self, xs: List[int]) -> List[int]:
        return xs

    @torch.jit.export
    def tensors(self, d: Dict[str, torch.Tensor]) -> Dict[str, torch.Tensor]:
        return d

    @torch.jit.export
    def nested(self, d: Dict[str, List[torch.Tensor]]) -> int:
        return len(d)

    @torch.jit.export
    def pair(self, x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        return x[0], x[1]

    @torch.jit.export
    def noop(self, x: torch.Tensor) -> torch.Tensor:
        return x

    @torch.jit.export
    def six(self, a: int, b: int, c: int, d: float, e: float, f: float) -> None:
        pass


# name, goal, method, arguments, calls per run
CASES = [
    ("NamedTuple return", 0.2, "forward", (torch.ones(4),), 2000),
    ("List[int] of 1M, round trip", 0.6, "ints", (list(range(1_000_000)),), 3),
    ("Dict[str, Tensor] of 100, round trip", 0.9, "tensors",
     ({f"k{i}": torch.ones(4) for i in range(100)},), 500),
    # Nested, in only (no goal): the kit's one tsb_any_unflatten per argument.
    ("Dict[str, List[Tensor]] of 16 x 8, in", None, "nested",
     ({f"k{i}": [torch.ones(2) for _ in range(8)] for i in range(16)},), 2000),
    ("Tuple[Tensor, Tensor] return", 0.8, "pair", (torch.ones(2, 4),), 5000),
    ("no-op forward(Tensor) -> Tensor", 0.8, "noop", (torch.ones(4),), 20000),
    ("6 scalars (3 int, 3 float) -> None", 0.5, "six", (1, 2, 3, 0.5, 1.5, 2.5), 20000),
]
# AOTInductor packages (bench/make_aoti_bench_packages.py, --aoti DIR):
# tsbridge.load(...) against torch._inductor.aoti_load_package(...), which
# flattens and rebuilds by the pytree specs in Python.
AOTI_CASES = [
    (".pt2 small MLP (64-128-10, batch 8)", 0.5, "mlp.pt2", lambda: (torch.rand(8, 64),), 5000),
    (".pt2 MLP 32-64-8, batch 4", 0.5, "mlp_mid.pt2", lambda: (torch.rand(4, 32),), 5000),
    (".pt2 tiny MLP (16-32-4, batch 4)", 0.5, "mlp_tiny.pt2", lambda: (torch.rand(4, 16),), 5000),
    (".pt2 x + 1 on one tensor", 0.5, "small.pt2", lambda: (torch.rand(16),), 5000),
    (".pt2 Dict[str, Tensor] of 100 in and out", 0.5, "dict100.pt2",
     lambda: ({f"k{i}": torch.rand(4) for i in range(100)},), 500),
]
REPEAT = 7
# CPU time of this process, as the C++ benchmarks use: the machine's cores
# are shared with other builds, and wall time would count their turns too.
TIMER = time.process_time


def best_pair(ours, theirs, number, repeat):
    """The best of `repeat` timeit runs of each, interleaved so that both
    sides see the same machine load (other builds share its cores)."""
    o = t = float("inf")
    for _ in range(repeat):
        t = min(t, timeit.timeit(theirs, number=number, timer=TIMER))
        o = min(o, timeit.timeit(ours, number=number, timer=TIMER))
    return o / number, t / number


PATH_NAMES = {"companion": "fast path", "exchange": "exchange API", "dlpack": "DLPack"}


def path_name():
    return PATH_NAMES.get(getattr(tsbridge, "TORCH_TENSOR_PATH", ""),
                          "fast path" if tsbridge.TORCH_FASTPATH else "DLPack")


# The other paths, each turned on by turning off the ones before it.
OTHER_PATHS = [
    {"TSB_PYTHON_NO_TORCH_FASTPATH": "1", "TSB_PYTHON_NO_DLPACK_EXCHANGE": "0"},
    {"TSB_PYTHON_NO_TORCH_FASTPATH": "1", "TSB_PYTHON_NO_DLPACK_EXCHANGE": "1"},
]


def other_rows(only, repeat):
    """The same cases in child processes, one per other path torch offers."""
    rows, seen = [], {path_name()}
    for extra in OTHER_PATHS:
        cmd = [sys.executable, __file__, "--json", "--repeat", str(repeat)] + (
            ["--only", only] if only else [])
        got = json.loads(subprocess.run(cmd, env=dict(os.environ, **extra), check=True,
                                        capture_output=True, text=True).stdout)
        if got and got[0][5] not in seen:
            seen.add(got[0][5])
            rows += [tuple(r) for r in got]
    return rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--json", action="store_true", help="rows as JSON (for --both)")
    parser.add_argument("--both", action="store_true",
                        help="also the other tensor paths' figures, from child processes")
    parser.add_argument("--only", help="run one case (by method name), for profiling")
    parser.add_argument("--repeat", type=int, default=REPEAT, help="timeit runs per side")
    parser.add_argument("--aoti", metavar="DIR",
                        help="also the .pt2 cases, with the packages in DIR (LibTorch 2.6)")
    parser.add_argument("--loop", type=float, default=0,
                        help="with --only: call tsbridge's side for this many seconds (perf)")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="tsb_bench_")
    path = os.path.join(work, "bench.pt")
    torch.jit.save(torch.jit.script(Bench()), path)
    theirs = torch.jit.load(path)
    ours = tsbridge.load(path)
    rows = []
    for name, goal, method, call_args, number in CASES:
        if args.only and method != args.only:
            continue
        t_fn, o_fn = getattr(theirs, method), getattr(ours, method)
        assert repr(o_fn(*call_args)) == repr(t_fn(*call_args)), name
        if args.loop:
            timeit.timeit(lambda: o_fn(*call_args), number=number)
            deadline = timeit.default_timer() + args.loop
            while timeit.default_timer() < deadline:
                timeit.timeit(lambda: o_fn(*call_args), number=number)
            return 0
        o, t = best_pair(lambda: o_fn(*call_args), lambda: t_fn(*call_args), number,
                         args.repeat)
        rows.append((name, o, t, o / t, goal, path_name()))
    if args.json:
        print(json.dumps(rows))
        return 0
    if args.both:
        rows += other_rows(args.only, args.repeat)
        rows.sort(key=lambda r: [c[0] for c in CASES].index(r[0]))  # stable: path order kept
    for name, goal, package, make_args, number in AOTI_CASES if args.aoti else []:
        package = os.path.join(args.aoti, package)
        o_fn, t_fn = tsbridge.load(package), torch._inductor.aoti_load_package(package)
        call_args = make_args()
        assert repr(o_fn(*call_args)) == repr(t_fn(*call_args)), name
        o, t = best_pair(lambda: o_fn(*call_args), lambda: t_fn(*call_args), number,
                         args.repeat)
        rows.append((name, o, t, o / t, goal, path_name()))
    if args.markdown:
        print("| case | tensors | tsbridge | PyTorch | ratio | goal |")
        print("|---|---|---|---|---|---|")
        for name, o, t, r, goal, path in rows:
            verdict = "—" if goal is None else f"≤ {goal} {'met' if r <= goal else 'missed'}"
            print(f"| {name} | {path} | {o * 1e6:.2f} µs | {t * 1e6:.2f} µs | {r:.2f} | "
                  f"{verdict} |")
    else:
        for name, o, t, r, goal, path in rows:
            print(f"{name:38s} {path:9s} tsbridge {o * 1e6:10.2f} us  PyTorch "
                  f"{t * 1e6:10.2f} us  ratio {r:5.2f}  (goal <= {goal or '-'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
