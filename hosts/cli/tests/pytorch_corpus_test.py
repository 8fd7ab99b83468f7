"""Modules scripted by PyTorch, called through tsbridge and by PyTorch on the
same inputs; the results must be equal, kind by kind.

The module is scripted here with /usr/bin/python3 (python3-torch) and saved;
each case is then run by `tsb run` (JSON in, JSON out, through the C ABI) and
compared with PyTorch's own result, turned into JSON by tests/text's
json_mapping.py, which is written from docs/json.md independently of the C++.
Usage: pytorch_corpus_test.py TSB WORK_DIR
"""
import json
import subprocess
import sys
from pathlib import Path
from enum import Enum
from typing import Any, Dict, List, Optional, Tuple, Union

try:
    import torch
except ImportError:
    print("pytorch_corpus_test: /usr/bin/python3 cannot import torch "
          "(apt-get install python3-torch)")
    sys.exit(1)

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "tests" / "core" / "text"))
sys.path.insert(0, str(ROOT / "tests" / "testing"))
from json_mapping import to_json  # noqa: E402
from fixtures import Color, Counter, Point  # noqa: E402,F401  (the corpus's classes)


class Kinds(torch.nn.Module):
    @torch.jit.export
    def enums(self, c: Color) -> Color:
        if c == Color.RED:
            return Color.GREEN
        return Color.RED

    @torch.jit.export
    def dtypes(self, t: torch.Tensor, d: torch.dtype) -> torch.Tensor:
        return t.to(d)

    @torch.jit.export
    def anys(self, x: Any) -> Any:
        return x

    @torch.jit.export
    def objects(self, n: int) -> Counter:
        return Counter(n + 1)

    @torch.jit.export
    def scalars(self, i: int, f: float, b: bool, c: complex) -> Tuple[int, float, bool, complex]:
        return i * 2, f / 2, not b, c * 2

    @torch.jit.export
    def text(self, s: str, d: torch.device) -> Tuple[str, torch.device]:
        return s.upper(), d

    @torch.jit.export
    def tensors(self, t: torch.Tensor, ts: List[torch.Tensor]) -> Dict[str, torch.Tensor]:
        return {"sum": t + ts[0], "stacked": torch.stack(ts), "ints": t.to(torch.int64)}

    @torch.jit.export
    def dicts(self, d: Dict[int, List[float]]) -> Dict[int, float]:
        out: Dict[int, float] = {}
        for k, v in d.items():
            out[k * 10] = sum(v)
        return out

    @torch.jit.export
    def optionals(self, x: Optional[int], t: Optional[torch.Tensor]) -> Optional[List[int]]:
        if x is None:
            return None
        n = 0 if t is None else int(t.numel())
        return [x, n]

    @torch.jit.export
    def unions(self, u: Union[int, str]) -> Union[float, str]:
        if isinstance(u, int):
            return float(u) + 0.5
        return u + "!"

    @torch.jit.export
    def named(self, p: Point) -> Point:
        return Point(p.x * 2, p.label)

    @torch.jit.export
    def nested(self, x: List[Dict[str, Tuple[int, Optional[str]]]]) -> List[Tuple[str, int]]:
        out: List[Tuple[str, int]] = []
        for d in x:
            for k, v in d.items():
                out.append((k, v[0]))
        return out

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x


CASES = [
    ("enums", (Color.RED,)),
    ("objects", (4,)),
    ("dtypes", (torch.tensor([1.5, -2.0]), torch.float64)),
    ("dtypes", (torch.tensor([1.5, -2.0]), torch.int32)),
    ("anys", ([1, 2],)),
    ("anys", ({"k": 1.5},)),
    ("scalars", (3, 1.5, True, complex(1, -2))),
    ("text", ("abc", torch.device("cpu"))),
    ("tensors", (torch.arange(4, dtype=torch.float32),
                 [torch.ones(4), torch.full((4,), 2.0)])),
    ("dicts", ({1: [0.5, 1.5], -2: []},)),
    ("optionals", (None, None)),
    ("optionals", (7, torch.zeros(2, 3))),
    ("optionals", (7, None)),
    ("unions", (4,)),
    ("unions", ("hi",)),
    ("named", (Point(1.25, "p"),)),
    ("named", (Point(-1.0, None),)),
    ("nested", ([{"a": (1, None), "b": (2, "x")}, {}],)),
]


def named_kind_json(v):
    """The two kinds json_mapping leaves out: an Enum and a script object
    print as docs/json.md says."""
    if isinstance(v, Enum):
        return {"enum": type(v).__name__, "member": v.name}
    if isinstance(v, Counter):
        return {"class": "Counter", "fields": {"n": v.n}}
    raise TypeError(f"no JSON mapping for {type(v).__name__}")


def expected_json(v):
    """json_mapping's JSON, with named_kind_json's kinds at any depth."""
    return to_json(v, named_kind_json)


@torch.jit.script
def dtype_code(d: torch.dtype) -> int:
    return d  # TorchScript carries a dtype as its ScalarType code


def argument_json(v):
    if isinstance(v, Enum):
        return v.name  # an Enum reads from its member name
    if isinstance(v, torch.dtype):
        # A scripted method's schema types a dtype parameter as int (only
        # operator schemas say ScalarType), so the host passes the code.
        return dtype_code(v)
    return to_json(v)


def short_names(j):
    """Qualified names depend on where the script ran (__torch__.Color):
    compare their last segment."""
    if isinstance(j, dict):
        return {k: (x.rsplit(".", 1)[-1] if k in ("enum", "class") and isinstance(x, str)
                    else short_names(x)) for k, x in j.items()}
    if isinstance(j, list):
        return [short_names(x) for x in j]
    return j


def main(tsb, work):
    work = Path(work)
    work.mkdir(parents=True, exist_ok=True)
    module = torch.jit.script(Kinds())
    path = work / "kinds.pt"
    torch.jit.save(module, str(path))
    passed = failed = 0
    for method, args in CASES:
        expected = expected_json(getattr(module, method)(*args))
        args_json = json.dumps([argument_json(a) for a in args])
        run = subprocess.run([tsb, "run", str(path), method, "--args", args_json],
                             capture_output=True, text=True)
        try:
            got = short_names(json.loads(run.stdout)) if run.returncode == 0 else None
        except json.JSONDecodeError:
            got = None
        if got == expected:
            passed += 1
        else:
            failed += 1
            print(f"FAILED {method}{args_json}: PyTorch {json.dumps(expected)}, "
                  f"tsbridge {run.stdout.strip() or run.stderr.strip()}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
