"""Scripts the module the R host's kind tests call (rkinds.pt), with
/usr/bin/python3's torch. Usage: fixtures.py WORK_DIR"""
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple, Union

# The shared fixtures (tests/testing/fixtures.py in the source tree).
sys.path.insert(0, str(Path(__file__).resolve().parents[4] / "tests" / "testing"))
from fixtures import Color, Point  # noqa: E402
import torch  # noqa: E402


@torch.jit.script
class Rect:
    def __init__(self, lo: float, hi: float):
        self.lo = lo
        self.hi = hi

    def area(self) -> float:
        return (self.hi - self.lo) * (self.hi - self.lo)

    def grow(self, by: float = 1.0) -> float:
        self.hi = self.hi + by
        return self.hi


class RKinds(torch.nn.Module):
    def forward(self, x: torch.Tensor, scale: float = 2.0) -> torch.Tensor:
        return x * scale

    @torch.jit.export
    def noop(self) -> None:
        pass

    @torch.jit.export
    def six(self, a: int, b: float, c: bool, d: str, e: int, f: float) -> int:
        return a + e

    @torch.jit.export
    def ints(self, xs: List[int]) -> List[int]:
        return [x * 2 for x in xs]

    @torch.jit.export
    def floats(self, xs: List[float]) -> List[float]:
        return xs

    @torch.jit.export
    def bools(self, xs: List[bool]) -> List[bool]:
        return [not x for x in xs]

    @torch.jit.export
    def strs(self, xs: List[str]) -> List[str]:
        return [x + "!" for x in xs]

    @torch.jit.export
    def big(self, k: int) -> int:
        return k * 1099511627776

    @torch.jit.export
    def bigs(self) -> List[int]:
        return [1, 1099511627776]

    @torch.jit.export
    def point(self, p: Point) -> Point:
        return Point(p.x * 2, p.label)

    @torch.jit.export
    def tup(self, t: Tuple[int, str]) -> Tuple[int, str]:
        return t[0] + 1, t[1]

    @torch.jit.export
    def tup_as_any(self, t: Tuple[int, str]) -> Any:
        return t

    @torch.jit.export
    def pairs(self, n: int) -> List[Tuple[int, int]]:
        return [(i, i * i) for i in range(n)]

    @torch.jit.export
    def lists(self, n: int) -> List[List[int]]:
        return [[i] for i in range(n)]

    @torch.jit.export
    def color(self, c: Color) -> Color:
        return Color.GREEN if c == Color.RED else Color.RED

    @torch.jit.export
    def rect(self, lo: float, hi: float) -> Rect:
        return Rect(lo, hi)

    @torch.jit.export
    def rect_area(self, r: Rect) -> float:
        return r.area()

    @torch.jit.export
    def int_keys(self, d: Dict[int, str]) -> Dict[int, str]:
        return {k * 10: v for k, v in d.items()}

    @torch.jit.export
    def str_keys(self, d: Dict[str, List[int]]) -> Dict[str, List[int]]:
        return d

    @torch.jit.export
    def opt(self, x: Optional[int] = None) -> Optional[int]:
        return x

    @torch.jit.export
    def opts(self, xs: List[Optional[int]]) -> List[Optional[int]]:
        return xs

    @torch.jit.export
    def union(self, u: Union[int, str]) -> str:
        if isinstance(u, int):
            return "int"
        return "str"

    @torch.jit.export
    def anything(self, x: Any) -> Any:
        return x

    @torch.jit.export
    def device(self, d: torch.device) -> torch.device:
        return d

    @torch.jit.export
    def to_dtype(self, t: torch.Tensor, d: torch.dtype) -> torch.Tensor:
        return t.to(d)

    @torch.jit.export
    def same(self, x: torch.Tensor) -> torch.Tensor:
        return x

    @torch.jit.export
    def double_in_place(self, x: torch.Tensor) -> torch.Tensor:
        return x.mul_(2)

    @torch.jit.export
    def col_sums(self, x: torch.Tensor) -> torch.Tensor:
        return x.sum(0)

    @torch.jit.export
    def cplx(self, c: complex) -> complex:
        return c * 2

    @torch.jit.export
    def fail(self, k: int) -> int:
        if k < 0:
            raise ValueError("k must not be negative")
        return k


if __name__ == "__main__":
    work = Path(sys.argv[1])
    work.mkdir(parents=True, exist_ok=True)
    torch.jit.save(torch.jit.script(RKinds()), str(work / "rkinds.pt"))
