"""The Python host against PyTorch's own TorchScript calls, in one process.

One module is scripted here and saved; PyTorch calls it through
torch.jit.load, tsbridge through tsbridge.load, on the same inputs. Each
figure is a ratio, tsbridge time / PyTorch time (lower is better), from
timeit: the best of REPEAT runs of NUMBER calls each, for both sides.

Usage: PYTHONPATH=build/python /usr/bin/python3 bench/python_host_bench.py [--markdown]
"""
import argparse
import os
import sys
import tempfile
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
    def pair(self, x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        return x[0], x[1]


# name, goal, method, arguments, calls per run
CASES = [
    ("NamedTuple return", 0.2, "forward", (torch.ones(4),), 2000),
    ("List[int] of 1M, round trip", 0.5, "ints", (list(range(1_000_000)),), 3),
    ("Dict[str, Tensor] of 100, round trip", 0.7, "tensors",
     ({f"k{i}": torch.ones(4) for i in range(100)},), 500),
    ("Tuple[Tensor, Tensor] return", 1.0, "pair", (torch.ones(2, 4),), 5000),
]
REPEAT = 7


def best(fn, number):
    return min(timeit.repeat(fn, number=number, repeat=REPEAT)) / number


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--only", help="run one case (by method name), for profiling")
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
        t = best(lambda: t_fn(*call_args), number)
        o = best(lambda: o_fn(*call_args), number)
        rows.append((name, o, t, o / t, goal))
    if args.markdown:
        print("| case | tsbridge | PyTorch | ratio | goal |")
        print("|---|---|---|---|---|")
        for name, o, t, r, goal in rows:
            print(f"| {name} | {o * 1e6:.1f} µs | {t * 1e6:.1f} µs | {r:.2f} | ≤ {goal} "
                  f"{'met' if r <= goal else 'missed'} |")
    else:
        for name, o, t, r, goal in rows:
            print(f"{name:40s} tsbridge {o * 1e6:10.1f} us  PyTorch {t * 1e6:10.1f} us  "
                  f"ratio {r:5.2f}  (goal <= {goal})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
