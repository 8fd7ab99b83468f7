"""Writes enum_object_fixture.pt: TorchScript Enums and classes for
tests/core/codecs/enum_object_test.cc.

LibTorch's C++ front end compiles only functions (torch::jit::compile), so
the Enum and class definitions come from Python; torch::jit::load then
imports them as the C++ tests need them. Usage: enum_object_fixture.py OUT.pt
"""
import sys
from enum import Enum
from pathlib import Path
from typing import List, Optional

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "testing"))
from fixtures import Color  # noqa: E402,F401  (RED, GREEN, BLUE)
import torch  # noqa: E402


class Weight(Enum):
    LIGHT = 0.5
    HEAVY = 2.0


class Shade(Enum):
    DARK = "dark"
    PALE = "pale"


@torch.jit.script
class Point:
    def __init__(self, x: int, y: int):
        self.x = x
        self.y = y


@torch.jit.script
class Node:
    def __init__(self, value: int, items: List[int], point: Point,
                 next: Optional[Point]):
        self.value = value
        self.items = items
        self.point = point
        self.next = next
        self.color = Color.GREEN


class Fixture(torch.nn.Module):
    @torch.jit.export
    def red(self) -> Color:
        return Color.RED

    @torch.jit.export
    def colors(self) -> List[Color]:
        return [Color.BLUE, Color.RED]

    @torch.jit.export
    def heavy(self) -> Weight:
        return Weight.HEAVY

    @torch.jit.export
    def pale(self) -> Shade:
        return Shade.PALE

    @torch.jit.export
    def point(self, x: int, y: int) -> Point:
        return Point(x, y)

    @torch.jit.export
    def node(self, with_next: bool) -> Node:
        next: Optional[Point] = None
        if with_next:
            next = Point(3, 4)
        return Node(1, [1, 2, 3], Point(1, 2), next)

    @torch.jit.export
    def color_value(self, c: Color) -> int:
        return c.value

    @torch.jit.export
    def weight_value(self, w: Weight) -> float:
        return w.value

    def forward(self, p: Point) -> int:
        return p.x + p.y


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: enum_object_fixture.py OUT.pt")
    torch.jit.save(torch.jit.script(Fixture()), sys.argv[1])
