"""The scripted models and classes the tests' fixture scripts share: every
script that saves a module for a test (tests/core/*, tests/fuzz,
hosts/*/tests) imports them from here instead of declaring its own.

    sys.path.insert(0, <repository>/tests/testing); import fixtures

Each class is named as a user's top-level script names it (__torch__.Point,
not __torch__.fixtures.Point): the tests and docs spell those names, and
TorchScript still reads the classes' source from this file.

tests/reliability/hostile/make_hostile.py alone keeps its own module: its
tests pin lines of the code torch.jit.save writes for it and of its source,
which a change here would move.

Without an importable torch this exits non-zero: a fixture is never
skipped silently.
"""
import sys
from enum import Enum
from typing import List, NamedTuple, Optional, Tuple

try:
    import torch
except ImportError as e:  # the build must fail, never skip
    sys.exit(f"fixtures.py: {sys.executable} cannot import torch ({e}); "
             "install python3-torch or set TSB_PYTHON to a Python with torch")

def main_name(cls):
    """Names cls in TorchScript as a class of the running script
    (__torch__.<name>), through the override torch.jit's naming reads."""
    cls._jit_override_qualname = "__torch__." + cls.__name__
    return cls


@main_name
class Color(Enum):
    RED = 1
    GREEN = 2
    BLUE = 3


@main_name
class Point(NamedTuple):
    x: float
    label: Optional[str]


@torch.jit.script
@main_name
class Counter:
    def __init__(self, n: int):
        self.n = n

    def add(self, k: int, times: int = 1) -> int:
        self.n += k * times
        return self.n


@main_name
class P(NamedTuple):
    a: int
    b: Optional[int]


@main_name
class Calls(torch.nn.Module):
    """Methods covering positional, keyword-only and default arguments, a
    class instance, a NamedTuple and an Enum: the runtime tests' module,
    and the module the fuzz seeds and hostile files start from."""

    counter: Counter

    def __init__(self):
        super().__init__()
        self.counter = Counter(5)
        self.register_buffer("w", torch.tensor([1.0, 2.0, 3.0]))

    def forward(self, x: torch.Tensor, p: P, scale: float = 2.0,
                bias: int = 0) -> torch.Tensor:
        b = p.b
        extra = b if b is not None else 0
        return x * scale + self.w + p.a + extra + bias

    @torch.jit.export
    def add(self, a: int, b: int = 10) -> int:
        return a + b

    @torch.jit.export
    def split(self, x: torch.Tensor) -> Tuple[torch.Tensor, int]:
        return x * 2, x.numel()

    @torch.jit.export
    def total(self, xs: List[float]) -> float:
        return sum(xs)

    @torch.jit.export
    def noop(self, x: torch.Tensor) -> torch.Tensor:
        return x

    @torch.jit.export
    def fail(self, k: int) -> int:
        if k < 0:
            raise ValueError("k must not be negative")
        return k

    @torch.jit.export
    def point(self, p: Point) -> Point:
        return Point(p.x + 1.0, p.label)

    @torch.jit.export
    def color(self, c: Color) -> int:
        return c.value


@main_name
class Net(torch.nn.Module):
    """The autograd and module-state tests' module: parameters in
    submodules, a buffer, dropout, plain attributes, and a method with two
    outputs."""

    note: str
    steps: int

    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(4, 8)
        self.drop = torch.nn.Dropout(0.5)
        self.fc2 = torch.nn.Linear(8, 3)
        self.register_buffer("scale", torch.tensor(2.0))
        self.note = "hello"
        self.steps = 0
        self.label = "net"

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(self.drop(torch.tanh(self.fc1(x)))) * self.scale

    @torch.jit.export
    def two(self, x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        h = torch.tanh(self.fc1(x))
        return h.sum(1), self.fc2(h)


def tensor_json(t):
    """A tensor in tsbridge's JSON form (docs/json.md)."""
    return {"dtype": str(t.dtype).replace("torch.", ""), "shape": list(t.shape),
            "data": t.detach().flatten().tolist()}
