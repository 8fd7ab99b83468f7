"""Scripts the TorchScript modules the runtime tests load.

Run by CMake at build time: python3 make_fixtures.py OUTPUT_DIR. Without an
importable torch this fails loudly (the tests need real PyTorch-made files).
"""
import os
import sys

try:
    import torch
except ImportError as e:  # the build must fail, never skip
    sys.exit(f"make_fixtures.py: {sys.executable} cannot import torch ({e}); "
             "install python3-torch or set TSB_PYTHON to a Python with torch")

from typing import List, NamedTuple, Optional, Tuple


class P(NamedTuple):
    a: int
    b: Optional[int]


@torch.jit.script
class Counter:
    def __init__(self, start: int):
        self.n = start

    def add(self, k: int, times: int = 1) -> int:
        self.n += k * times
        return self.n


class Calls(torch.nn.Module):
    """Methods covering positional, keyword-only and default arguments."""

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


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.jit.save(torch.jit.script(Calls()), os.path.join(out, "calls.pt"))


if __name__ == "__main__":
    main()
