"""tsb inspect / tsb run on an AOTInductor package (docs/export.md), against
PyTorch's own caller on the same inputs: arguments go in as files torch.save
wrote ({"file": ...}), the result comes back with --out and torch.load.

Usage: cli_export_test.py TSB FIXTURES WORK. With LibTorch 1.13 (no
nested.pt2 among the fixtures), checks the refusal instead."""
import functools
import json
import os
import pathlib
import sys

import torch

from tsb_run import run as run_tsb

tsb, fixtures, work = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
work.mkdir(parents=True, exist_ok=True)
run = functools.partial(run_tsb, tsb)


package = fixtures / "nested.pt2"
if not package.exists():
    fake = work / "m.pt2"
    fake.write_text("never read")
    out = run("inspect", fake, ok=False)
    assert "needs LibTorch 2.6 or newer" in out, out
    print("refused as expected:", out.strip())
    sys.exit(0)

out = run("inspect", package)
assert "forward(Tensor arg0, (Tensor, Tensor) arg1" in out and "*, Tensor scale" in out, out

torch.manual_seed(5)
t = lambda *shape: torch.randn(*shape)  # noqa: E731
args = [t(3), (t(3), t(3)), [t(3), t(3)], {"u": t(3), "v": t(3)}, (t(2), t(2)), None]
kwargs = {"scale": t(3), "span": (t(2), t(2)), "steps": torch.tensor([1, 2, 3])}
refs = []
for i, a in enumerate(args):
    if a is None:
        refs.append(None)
    elif isinstance(a, dict):  # {"file": ...} stands for a value, not for a Dict
        for k, v in a.items():
            torch.save(v, work / f"arg{i}_{k}.pt")
        refs.append({k: {"file": str(work / f"arg{i}_{k}.pt")} for k in a})
    else:
        torch.save(a, work / f"arg{i}.pt")
        refs.append({"file": str(work / f"arg{i}.pt")})
kw_refs = {}
for k, v in kwargs.items():
    torch.save(v, work / f"{k}.pt")  # the span tuple too: a value, not a Dict
    kw_refs[k] = {"file": str(work / f"{k}.pt")}
run("run", package, "--args", json.dumps(refs), "--kwargs", json.dumps(kw_refs),
    "--out", work / "out.pt")
got = torch.load(work / "out.pt", weights_only=False)
# PyTorch's caller rebuilds the output's namedtuple by its registered name.
from torch.utils import _pytree as pytree  # noqa: E402
import collections  # noqa: E402
pytree._register_namedtuple(collections.namedtuple("Box", ["lo", "hi"]),
                            serialized_type_name="tsbtest.Box")
import dataclasses  # noqa: E402


@dataclasses.dataclass
class Span:
    start: torch.Tensor
    stop: torch.Tensor


torch.export.register_dataclass(Span, serialized_type_name="tsbtest.Span")
want = torch._inductor.aoti_load_package(str(package))(*args, **kwargs)


def same(g, w, where):
    if dataclasses.is_dataclass(w):  # a custom node no plugin names: a tuple
        w = tuple(getattr(w, f.name) for f in dataclasses.fields(w))
    if isinstance(w, torch.Tensor):
        assert torch.equal(g, w) and g.dtype == w.dtype, where
    elif isinstance(w, dict):
        assert list(g) == list(w), where
        for k in w:
            same(g[k], w[k], f"{where}[{k!r}]")
    elif isinstance(w, (list, tuple)):
        assert len(g) == len(w), where
        for i, (gi, wi) in enumerate(zip(g, w)):
            same(gi, wi, f"{where}[{i}]")
    else:
        assert g == w, where


same(got, want, "result")
bad = list(refs)
bad[2] = [refs[0], refs[0], refs[0]]  # exported with a list of two
out = run("run", package, "--args", json.dumps(bad), "--kwargs", json.dumps(kw_refs), ok=False)
assert "argument 'arg2'" in out and "expected a list of 2 items" in out, out
print("tsb run on a .pt2 matches PyTorch's own caller")
