"""The Python host's long run (docs/reliability.md, "The Python host soak").

    PYTHONPATH=build/python /usr/bin/python3 soak.py [--ops N] [--threads 4]
        [--plugin PATH ...] [--bad-plugin PATH ...]
        [--library PATH|NAME ...] [--bad-library PATH ...]

Four threads make module calls (which release the GIL inside tsbridge) and
conversions of every kind (convert, JSON, pickle, tensors from numpy), each
result checked against its formula, while another thread loads plugins and
operator libraries (the good ones: a no-op after the first; the bad ones
must fail every time). Once an operator library is in, the workers also call
its operator (torchvision::nms, or the test fixture's tsbfixture::twice). The
resident set size is sampled as the run goes: after the warm-up (the first
10 % of operations) it must stay within 5 % of its value then. At the end,
with every result and the module dropped, tsbridge's live-handle count must
be 0. Prints the RSS curve; exits 1 on any failure.
"""
import argparse
import gc
import io
import os
import sys
import tempfile
import threading
from typing import Dict, List, NamedTuple, Optional, Tuple

import numpy
import torch

import tsbridge
from torch_io import torch_load_bytes


class Rec(NamedTuple):
    a: torch.Tensor
    b: List[str]


class Soak(torch.nn.Module):
    def forward(self, a: int, b: int) -> int:
        return a + b

    @torch.jit.export
    def scale(self, x: torch.Tensor, s: float) -> torch.Tensor:
        return x * s

    @torch.jit.export
    def pack(self, xs: List[int], d: Dict[str, float]) -> Tuple[int, float]:
        total = 0.0
        for v in d.values():
            total += v
        return sum(xs), total

    @torch.jit.export
    def rec(self, r: Rec, extra: str) -> Rec:
        return Rec(r.a + 1, r.b + [extra])

    @torch.jit.export
    def opt(self, x: Optional[str]) -> str:
        if x is None:
            return "none"
        return x + "!"


def page_kb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024


class Run:
    def __init__(self, module, total, threads):
        self.m = module
        self.op_checks = []  # appended by the loader once a library is in
        self.total = total
        self.threads = threads
        self.done = 0
        self.lock = threading.Lock()
        self.failures = []
        self.curve = []  # (operations done, RSS in kB)
        self.next_sample = 0

    def tick(self, n=1):
        with self.lock:
            self.done += n
            if self.done >= self.next_sample:
                self.curve.append((self.done, page_kb()))
                self.next_sample += max(1, self.total // 40)
            return self.done < self.total

    def check(self, ok, what):
        if not ok:
            self.failures.append(what)
            raise AssertionError(what)

    def step(self, i):
        """One of each kind of operation; checks each result."""
        m, check = self.m, self.check
        check(m(i, 2) == i + 2, f"forward({i}, 2)")
        x = torch.full((4,), float(i % 7))
        check(torch.equal(m.scale(x, 2.0), x * 2), "scale")
        check(m.pack([i, 1, 2], {"a": 0.5, "b": 1.5}) == (i + 3, 2.0), "pack")
        r = m.rec(Rec(torch.zeros(2), ["p"]), str(i))
        check(r.b == ["p", str(i)] and torch.equal(r.a, torch.ones(2)), "rec")
        check(m.opt(None) == "none" and m.opt("x") == "x!", "opt")
        d = {"k": [i, i + 1], "l": []}
        check(tsbridge.convert(d, "Dict[str, List[int]]") == d, "convert dict")
        tup = [(i, "ü"), (-1, "")]
        text = tsbridge.to_json(tup, "List[Tuple[int, str]]")
        check(tsbridge.from_json(text, "List[Tuple[int, str]]") == tup, "json")
        blob = tsbridge.to_pickle({i: torch.arange(3)}, "Dict[int, Tensor]")
        back = torch_load_bytes(blob)
        check(list(back) == [i] and torch.equal(back[i], torch.arange(3)), "to_pickle")
        buf = io.BytesIO()
        torch.save([1.5, i], buf)
        check(tsbridge.from_pickle(buf.getvalue()) == [1.5, i], "from_pickle")
        arr = numpy.arange(5, dtype=numpy.float64) + i
        check(tsbridge.convert(arr, "Tensor").tolist() == arr.tolist(), "numpy tensor")
        try:
            tsbridge.convert([1, "two"], "List[int]")
            check(False, "a bad list converted")
        except tsbridge.TypeMismatchError as e:
            check("[1]" in e.path, f"bad list path {e.path!r}")
        for op_check in list(self.op_checks):
            op_check(self, i)
        return 12 + len(self.op_checks)  # operations in one step

    def worker(self, k):
        i = k
        try:
            while self.tick(self.step(i)):
                i += self.threads
        except Exception as e:  # noqa: BLE001  (any failure ends the run)
            self.failures.append(f"thread {k}: {e!r}")


def check_nms(run, i):
    boxes = torch.tensor([[0.0, 0, 10, 10], [1, 1, 10, 10], [20, 20, 30, 30 + i % 5]])
    keep = tsbridge.ops.torchvision.nms(boxes, torch.tensor([0.9, 0.8, 0.7]), 0.5)
    run.check(keep.tolist() == [0, 2], f"torchvision::nms gave {keep.tolist()}")


def check_twice(run, i):
    x = torch.full((3,), float(i % 11))
    run.check(torch.equal(tsbridge.ops.tsbfixture.twice(x), x * 2), "tsbfixture::twice")


# The operator each library registers, checked by the workers once it is in.
OP_CHECKS = {"torchvision::nms": check_nms, "tsbfixture::twice": check_twice}


def loader(run, stop, args, counts, failures):
    while not stop.is_set():
        for path in args.plugin:
            tsbridge.load_plugin(path)
        for path in args.library:
            for op in tsbridge.load_library(path).operators:
                if op in OP_CHECKS and OP_CHECKS[op] not in run.op_checks:
                    run.op_checks.append(OP_CHECKS[op])
        for load, paths in ((tsbridge.load_plugin, args.bad_plugin),
                            (tsbridge.load_library, args.bad_library)):
            for path in paths:
                try:
                    load(path)
                    failures.append(f"bad {load.__name__} {path} loaded")
                except tsbridge.Error:
                    pass
        counts[0] += 1
        stop.wait(0.005)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ops", type=int, default=int(os.environ.get("TSB_SOAK_OPS", "1000000")))
    ap.add_argument("--threads", type=int, default=4)
    ap.add_argument("--plugin", action="append", default=[])
    ap.add_argument("--bad-plugin", action="append", default=[])
    ap.add_argument("--library", action="append", default=[])
    ap.add_argument("--bad-library", action="append", default=[])
    ap.add_argument("--tolerance", type=float, default=0.05)
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as work:
        path = os.path.join(work, "soak.pt")
        torch.jit.save(torch.jit.script(Soak()), path)
        module = tsbridge.load(path)
    run = Run(module, args.ops, args.threads)
    stop, rounds, load_failures = threading.Event(), [0], []
    plugins = threading.Thread(target=loader, args=(run, stop, args, rounds, load_failures))
    plugins.start()
    workers = [threading.Thread(target=run.worker, args=(k,)) for k in range(args.threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    stop.set()
    plugins.join()

    del module, run.m
    gc.collect()
    handles = tsbridge._native.live_handles()
    failures = run.failures + load_failures
    if not run.curve:  # every worker failed before its first sample
        failures.append("no operation completed")
        run.curve.append((0, page_kb()))
    warm = [kb for done, kb in run.curve if done >= args.ops // 10]
    base = warm[0] if warm else run.curve[-1][1]
    peak = max(warm) if warm else base
    growth = (peak - base) / base
    print("operations  RSS (MB)")
    for done, kb in run.curve:
        print(f"{done:10d}  {kb / 1024:8.1f}")
    print(f"operations: {run.done}  threads: {args.threads}  load rounds: {rounds[0]}  "
          f"operator checks: {len(run.op_checks)} of {len(args.library)} libraries")
    print(f"RSS after warm-up: {base / 1024:.1f} MB, peak {peak / 1024:.1f} MB, "
          f"growth {growth * 100:+.2f} % (bound {args.tolerance * 100:.0f} %)")
    print(f"live handles at the end: {handles}")
    if handles != 0:
        failures.append(f"{handles} handles alive at the end")
    if growth > args.tolerance:
        failures.append(f"RSS grew {growth * 100:.2f} % after warm-up")
    if rounds[0] == 0 and (args.plugin or args.bad_plugin or args.library):
        failures.append("the loader never completed a round")
    if len(run.op_checks) < len(args.library):
        failures.append("an operator library's operator was never called")
    for f in failures[:20]:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
