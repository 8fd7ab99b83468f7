"""Exports and compiles the .pt2 packages the export tests load (docs/export.md).

Usage: make_pt2_fixtures.py OUTDIR. With a PyTorch that has AOTInductor
(2.6), writes into OUTDIR:
  nested.pt2        one model whose signature holds the spec cases: a tensor,
                    a tuple, a list, a str-keyed dict, a registered namedtuple,
                    a None (specialised), keyword arguments, a custom node (a
                    registered dataclass), an int64 tensor; outputs nested the
                    same way, with a None, a 0-d, a float64 and an int64 tensor
  nested_io.pt      torch.save of {"args", "kwargs", "out"}: the inputs and
                    what PyTorch's own caller (aoti_load_package) returns for
                    them; namedtuples saved as plain tuples
  two_models.pt2    two models: "model" (the nested one) and "twice" (x * 2)
  program.pt2       a torch.export.save archive (an ExportedProgram), which
                    tsbridge refuses
With an older PyTorch (1.13), writes only a stamp: tsbridge built there
refuses every .pt2. Compiling takes ~15 s per model: one model, one process.
"""
import collections
import dataclasses
import pathlib
import sys

import torch

out = pathlib.Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)

try:
    from torch._inductor import aoti_compile_and_package  # noqa: F401
except ImportError:
    (out / "stamp").write_text(f"no AOTInductor in torch {torch.__version__}\n")
    sys.exit(0)

from torch.utils import _pytree as pytree  # noqa: E402

Box = collections.namedtuple("Box", ["lo", "hi"])
pytree._register_namedtuple(Box, serialized_type_name="tsbtest.Box")


@dataclasses.dataclass
class Span:
    start: torch.Tensor
    stop: torch.Tensor


torch.export.register_dataclass(Span, serialized_type_name="tsbtest.Span")


class Nested(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(3, 3)

    def forward(self, x, pair, items, table, box, nothing, *, scale, span, steps):
        a, b = pair
        y = self.linear(x) * scale + a - b + items[0] + items[1] + table["u"] * table["v"]
        return {
            "sum": y,
            "parts": [a, b.to(torch.float64)],
            "box": Box(box.lo + 1, box.hi * 2),
            "none": None,
            "t": (y.sum(), table["v"]),
            "span": Span(span.start + steps.sum(), span.stop),
            "steps": steps * 2,
        }


class Twice(torch.nn.Module):
    def forward(self, x):
        return x * 2


torch.manual_seed(0)
model = Nested().eval()
t = lambda *shape: torch.randn(*shape)  # noqa: E731
args = (t(3), (t(3), t(3)), [t(3), t(3)], {"u": t(3), "v": t(3)}, Box(t(2), t(2)), None)
kwargs = {"scale": t(3), "span": Span(t(2), t(2)), "steps": torch.tensor([1, 2, 3])}
from torch._inductor.package import package_aoti  # noqa: E402

package = {"aot_inductor.package": True}
with torch.no_grad():
    program = torch.export.export(model, args, kwargs)
    # aoti_compile_and_package, in its two steps, so that the compiled
    # files also go into the package with two models.
    nested = torch._inductor.aot_compile(program.module(), args, kwargs, options=package)
    path = package_aoti(str(out / "nested.pt2"), nested)
    result = torch._inductor.aoti_load_package(path)(*args, **kwargs)
    twice = torch._inductor.aot_compile(
        torch.export.export(Twice(), (t(2),)).module(), (t(2),), options=package)
    package_aoti(str(out / "two_models.pt2"), {"model": nested, "twice": twice})


def plain(value):
    """Namedtuples and dataclasses as tuples: tsbridge's pickle reader knows
    no Box or Span class."""
    if dataclasses.is_dataclass(value):
        return tuple(plain(getattr(value, f.name)) for f in dataclasses.fields(value))
    if isinstance(value, tuple):
        return tuple(plain(v) for v in value)
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


torch.save({"args": plain(list(args)), "kwargs": plain(kwargs), "out": plain(result)},
           str(out / "nested_io.pt"))
torch.export.save(program, str(out / "program.pt2"))
(out / "stamp").write_text(f"compiled with torch {torch.__version__}\n")
