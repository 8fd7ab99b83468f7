"""The modules the Python host is checked against: the 18-case corpus of
hosts/cli/tests/pytorch_corpus_test.py (its Kinds module and CASES), plus
More, which covers what that one leaves out: bulk lists, dicts with every
key kind, tuples, bool tensors, nested NamedTuples, Enums of every value
type, objects with methods, the same tensor returned.

Scripted in the test process by /usr/bin/python3's torch (python3-torch).
"""
import sys
from enum import Enum
from pathlib import Path
from typing import Dict, List, NamedTuple, Optional, Tuple, Union

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "cli" / "tests"))
import pytorch_corpus_test as base  # noqa: E402  (Kinds, CASES, Point, Color)


class Pair(NamedTuple):
    left: torch.Tensor
    right: List[int]


class Wrapped(NamedTuple):
    inner: base.Point
    tags: Dict[str, int]


class Mood(Enum):
    CALM = "calm"
    ANGRY = "angry"


class Weight(Enum):
    LIGHT = 0.5
    HEAVY = 2.0


@torch.jit.script
class Account:
    def __init__(self, owner: str, balance: int):
        self.owner = owner
        self.balance = balance

    def deposit(self, amount: int, times: int = 1) -> int:
        self.balance += amount * times
        return self.balance


class More(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        return x + 1, x * 2

    @torch.jit.export
    def same(self, x: torch.Tensor) -> torch.Tensor:
        return x

    @torch.jit.export
    def ints(self, xs: List[int]) -> List[int]:
        return [x * 2 for x in xs]

    @torch.jit.export
    def floats(self, xs: List[float], scale: float = 0.5) -> List[float]:
        return [x * scale for x in xs]

    @torch.jit.export
    def bools(self, xs: List[bool]) -> List[bool]:
        return [not x for x in xs]

    @torch.jit.export
    def strs(self, xs: List[str]) -> List[str]:
        return [x + "é" for x in xs]

    @torch.jit.export
    def float_keys(self, d: Dict[float, str]) -> Dict[float, str]:
        return {k * 2: v for k, v in d.items()}

    @torch.jit.export
    def bool_keys(self, d: Dict[bool, int]) -> Dict[bool, int]:
        return {not k: v for k, v in d.items()}

    @torch.jit.export
    def str_tensors(self, d: Dict[str, torch.Tensor]) -> Dict[str, torch.Tensor]:
        return {k + "!": v * 2 for k, v in d.items()}

    @torch.jit.export
    def masks(self, t: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        return t > 0, t.logical_not() if t.dtype == torch.bool else t < 0

    @torch.jit.export
    def pairs(self, n: int) -> List[Pair]:
        return [Pair(torch.full((1,), float(i)), [i, i]) for i in range(n)]

    @torch.jit.export
    def wrapped(self, w: Wrapped) -> Optional[Wrapped]:
        if len(w.tags) == 0:
            return None
        return Wrapped(base.Point(w.inner.x + 1, w.inner.label), w.tags)

    @torch.jit.export
    def moods(self, m: Mood, w: Weight) -> Tuple[Mood, Weight, str, float]:
        other = Mood.ANGRY if m == Mood.CALM else Mood.CALM
        return other, Weight.HEAVY, m.value, w.value

    @torch.jit.export
    def account(self, owner: str) -> Account:
        return Account(owner, 10)

    @torch.jit.export
    def balance(self, a: Account) -> int:
        return a.balance

    @torch.jit.export
    def unions(self, u: Union[List[int], str, torch.Tensor]) -> Union[int, str]:
        if isinstance(u, str):
            return u
        if isinstance(u, torch.Tensor):
            return int(u.numel())
        return len(u)

    @torch.jit.export
    def nested(self, x: Dict[int, List[Tuple[str, Optional[float]]]]
               ) -> List[Dict[str, List[int]]]:
        out: List[Dict[str, List[int]]] = []
        for k, items in x.items():
            d: Dict[str, List[int]] = {}
            for name, f in items:
                d[name] = [k, 0 if f is None else 1]
            out.append(d)
        return out

    @torch.jit.export
    def device_of(self, t: torch.Tensor) -> torch.device:
        return t.device

    @torch.jit.export
    def extremes(self, a: int, b: float) -> Tuple[int, float, complex]:
        return a, b, complex(b, -b)

    @torch.jit.export
    def fail(self, k: int) -> int:
        if k < 0:
            raise ValueError("k must not be negative")
        return k


MORE_CASES = [
    ("forward", (torch.arange(3.0),)),
    ("ints", (list(range(-5, 5)),)),
    ("ints", ([],)),
    ("floats", ([0.5, -1.25, 3.0],)),
    ("floats", ([1.0, 2.0], 4.0)),
    ("bools", ([True, False, True],)),
    ("strs", (["a", "ü", ""],)),
    ("float_keys", ({0.5: "a", -1.0: "b"},)),
    ("bool_keys", ({True: 1, False: 0},)),
    ("str_tensors", ({"a": torch.ones(2), "b": torch.zeros(3, dtype=torch.float64)},)),
    ("masks", (torch.tensor([-1.0, 0.0, 2.0]),)),
    ("masks", (torch.tensor([True, False]),)),
    ("pairs", (3,)),
    ("wrapped", (Wrapped(base.Point(1.0, "p"), {"t": 1}),)),
    ("wrapped", (Wrapped(base.Point(1.0, None), {}),)),
    ("moods", (Mood.CALM, Weight.LIGHT)),
    ("moods", (Mood.ANGRY, Weight.HEAVY)),
    ("unions", ([1, 2, 3],)),
    ("unions", ("s",)),
    ("unions", (torch.zeros(2, 2),)),
    ("nested", ({1: [("a", None), ("b", 2.5)], 7: []},)),
    ("device_of", (torch.ones(1),)),
    ("extremes", (2**63 - 1, float("inf"))),
    ("extremes", (-2**63, -0.0)),
]


def save_modules(directory):
    """Scripts both modules and saves them; returns {name: (scripted, path)}."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    out = {}
    for name, cls in (("kinds", base.Kinds), ("more", More)):
        scripted = torch.jit.script(cls())
        path = directory / f"{name}.pt"
        torch.jit.save(scripted, str(path))
        out[name] = (scripted, path)
    return out
