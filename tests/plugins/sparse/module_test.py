"""A TorchScript module using the torchsparse operators and SparseStorage:
scripted (and a function traced) by PyTorch, saved, then loaded and run in a
fresh Python process and by `tsb run`, results compared with the ones
computed before saving.

usage: module_test.py PLUGIN.so TSB OUTDIR
       module_test.py --check PLUGIN.so OUTDIR      (the fresh process)
"""
import json
import os
import pickle
import subprocess
import sys
from typing import Tuple

import torch

from sparse_testing import Failures, dense, load, random_coo

M, N, F = 6, 5, 3


class SparseNet(torch.nn.Module):
    def __init__(self, storage):
        super().__init__()
        self.storage = storage

    def forward(self, x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        s = self.storage
        summed, _ = s.spmm(x, "sum")
        top, arg = torch.ops.torchsparse.spmm(s.rowptr(), s.col(), s.value(), x, "max")
        assert arg is not None
        back, _ = s.t().spmm(summed, "mean")  # N x F again
        return summed + top, arg, back

    @torch.jit.export
    def build(self, row: torch.Tensor, col: torch.Tensor, value: torch.Tensor,
              x: torch.Tensor) -> torch.Tensor:
        m, n = self.storage.sparse_size(0), self.storage.sparse_size(1)
        s = torch.ops.torchsparse.storage_from_coo(row, col, value, [m, n])
        r, c, v = torch.ops.torchsparse.coalesce(s.row(), s.col(), s.value(), m, n, "sum")
        t = torch.classes.torchsparse.SparseStorage(r, None, c, v, [m, n])
        return t.to_dense() @ x + t.spmm(x, "min")[0]

    @torch.jit.export
    def caches(self) -> int:
        return len(self.storage.cached_keys()) + self.storage.nnz()


def traced_fn(rowptr, col, value, x):
    out, _ = torch.ops.torchsparse.spmm(rowptr, col, value, x, "mean")
    r, c, v = torch.ops.torchsparse.transpose(torch.ops.torchsparse.csr_to_coo(rowptr), col,
                                              value, M, N)
    return out * 2 + torch.ops.torchsparse.to_dense(r, c, v, N, M).sum()


def inputs():
    row, col, value = random_coo(M, N, 11, dtype=torch.float32, seed=3, empty_rows=(2,),
                                 duplicates=True)
    x = torch.randn(N, F, generator=torch.Generator().manual_seed(4))
    return row, col, value, x


def to_json(t):
    return {"dtype": str(t.dtype).replace("torch.", ""), "shape": list(t.shape),
            "data": t.flatten().tolist()}


def from_json(j):
    dtype = getattr(torch, j["dtype"])
    return torch.tensor(j["data"], dtype=dtype).reshape(j["shape"])


def expected(ops, row, col, value, x):
    """What the module must return, from the operators and dense algebra."""
    rowptr = ops.coo_to_csr(row, M)
    a = dense(row, col, value, M, N)
    summed = a @ x
    top, arg = ops.spmm(rowptr, col, value, x, "max")
    back = ops.spmm(*ops.csr_to_csc(rowptr, col, value, N)[:3], summed, "mean")[0]
    return summed + top, arg, back


def make(plugin, tsb, out):
    ops = load(plugin)
    t = Failures()
    row, col, value, x = inputs()
    storage = ops.storage_from_coo(row, col, value, [M, N]).fill_cache()
    scripted = torch.jit.script(SparseNet(storage))
    result = scripted(x)
    want = expected(ops, row, col, value, x)
    t.check(all(torch.allclose(a, b, atol=1e-5) for a, b in zip(result, want)),
            "scripted forward matches the operators")
    built = scripted.build(row, col, value, x)
    r, c, v = ops.coalesce(row, col, value, M, N, "sum")
    t.check(torch.allclose(built, dense(row, col, value, M, N) @ x +
                           ops.spmm(ops.coo_to_csr(r, M), c, v, x, "min")[0], atol=1e-5),
            "scripted build matches the operators")
    scripted.save(os.path.join(out, "scripted.pt"))

    rowptr = ops.coo_to_csr(row, M)
    traced = torch.jit.trace(traced_fn, (rowptr, col, value, x))
    t.check("torchsparse::spmm" in str(traced.graph) and
            "torchsparse::transpose" in str(traced.graph), "the trace records torchsparse ops")
    # The trace replays on other inputs (nothing captured as a constant).
    x2 = torch.randn(N, F)
    t.check(torch.allclose(traced(rowptr, col, value, x2), traced_fn(rowptr, col, value, x2)),
            "the trace replays on other inputs")
    traced.save(os.path.join(out, "traced.pt"))

    # Gradients flow through the scripted and the traced operators.
    v = value.clone().requires_grad_()
    traced(rowptr, col, v, x).sum().backward()
    v2 = value.clone().requires_grad_()
    traced_fn(rowptr, col, v2, x).sum().backward()
    t.check(torch.allclose(v.grad, v2.grad), "the trace differentiates like eager")

    # The storage itself: torch.save / torch.load and pickle.
    path = os.path.join(out, "storage.pt")
    torch.save(storage, path)
    copy = torch.load(path, weights_only=False)
    t.check(torch.equal(copy.rowptr(), storage.rowptr()) and
            copy.cached_keys() == storage.cached_keys() and
            torch.equal(copy.to_dense(), storage.to_dense()), "SparseStorage survives torch.save")
    again = pickle.loads(pickle.dumps(storage))
    t.check(torch.equal(again.csr2csc(), storage.csr2csc()), "SparseStorage pickles")

    torch.save({"x": x, "row": row, "col": col, "value": value, "result": result,
                "built": built, "traced": traced(rowptr, col, value, x)},
               os.path.join(out, "expected.pt"))

    # A fresh Python process.
    check = subprocess.run([sys.executable, __file__, "--check", plugin, out],
                           capture_output=True, text=True)
    print(check.stdout, check.stderr, end="")
    t.check(check.returncode == 0, "a fresh Python process loads and runs both modules")

    # tsb run, with the bundled sparse plugin (and --plugin: loading twice is a no-op).
    def run(module, method, args, options=("--plugin", plugin)):
        p = subprocess.run([tsb, *options, "run", os.path.join(out, module), method,
                            "--args", json.dumps(args)], capture_output=True, text=True)
        if p.returncode != 0:
            print(p.stdout, p.stderr, file=sys.stderr)
            return None
        return json.loads(p.stdout)

    got = run("scripted.pt", "forward", [to_json(x)])
    t.check(got is not None and len(got) == 3 and
            all(torch.allclose(from_json(g), w, atol=1e-5) for g, w in zip(got, result)),
            "tsb run scripted.pt forward")
    # Without --plugin: the module's code names torchsparse, so tsb's deferred
    # bundled sparse plugin loads before LibTorch's importer reads it.
    got = run("scripted.pt", "forward", [to_json(x)], options=())
    t.check(got is not None and len(got) == 3 and
            all(torch.allclose(from_json(g), w, atol=1e-5) for g, w in zip(got, result)),
            "tsb run scripted.pt forward, the bundled sparse plugin loaded on first need")
    got = run("scripted.pt", "build", [to_json(row), to_json(col), to_json(value), to_json(x)])
    t.check(got is not None and torch.allclose(from_json(got), built, atol=1e-5),
            "tsb run scripted.pt build")
    got = run("scripted.pt", "caches", [])
    t.check(got == 5 + storage.nnz(), f"tsb run scripted.pt caches: {got}")
    got = run("traced.pt", "forward", [to_json(rowptr), to_json(col), to_json(value), to_json(x)])
    t.check(got is not None and torch.allclose(from_json(got), traced(rowptr, col, value, x),
                                               atol=1e-5), "tsb run traced.pt forward")
    t.close("module_test")


def check(plugin, out):
    load(plugin)
    t = Failures()
    e = torch.load(os.path.join(out, "expected.pt"), weights_only=False)
    scripted = torch.jit.load(os.path.join(out, "scripted.pt"))
    result = scripted(e["x"])
    t.check(all(torch.allclose(a, b) for a, b in zip(result, e["result"])),
            "fresh process: scripted forward")
    t.check(torch.allclose(scripted.build(e["row"], e["col"], e["value"], e["x"]), e["built"]),
            "fresh process: scripted build")
    traced = torch.jit.load(os.path.join(out, "traced.pt"))
    rowptr = torch.ops.torchsparse.coo_to_csr(e["row"], M)
    t.check(torch.allclose(traced(rowptr, e["col"], e["value"], e["x"]), e["traced"]),
            "fresh process: traced forward")
    t.close("module_test --check")


if __name__ == "__main__":
    if sys.argv[1] == "--check":
        check(sys.argv[2], sys.argv[3])
    else:
        os.makedirs(sys.argv[3], exist_ok=True)
        make(sys.argv[1], sys.argv[2], sys.argv[3])
