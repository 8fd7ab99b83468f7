"""Scripts the modules the Rust host's tests load (hosts/rust/tests) and
writes what PyTorch itself returns for them.

Usage: make_fixtures.py OUTDIR. Writes into OUTDIR:
  kinds.pt      a scripted module with a method per kind: nested containers,
                a NamedTuple (__torch__.Point), dicts keyed by int, float,
                bool, str and Tensor, Optional, Union, an Enum, a TorchScript
                class, keyword arguments and defaults, an in-place append
  mlp.pt        a small Linear + tanh module for autograd and state
  expected.pt   torch.save of {method: PyTorch's output} for the inputs the
                Rust tests pass (spelled again in hosts/rust/tests/common);
                NamedTuples as plain tuples, Enums as their values
  grads.pt      torch.save of the MLP's gradients for one input
  dropout.pt    dropout left on; dropout_expected.pt its output after
                torch.manual_seed(7)
"""
import pathlib
import sys
from typing import Dict, List, Optional, Tuple, Union

# Point, Color and Counter: the shared fixtures (tests/testing/fixtures.py).
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3] / "tests" / "testing"))
from fixtures import Color, Counter, Point  # noqa: E402
import torch  # noqa: E402


class Kinds(torch.nn.Module):
    def forward(self, x: torch.Tensor, n: int = 2, scale: float = 0.5) -> torch.Tensor:
        return x * n + scale

    @torch.jit.export
    def noop(self) -> None:
        pass

    @torch.jit.export
    def nested(self, x: Dict[str, List[Tuple[int, Optional[float]]]]
               ) -> Dict[str, List[Tuple[int, Optional[float]]]]:
        return x

    @torch.jit.export
    def point(self, p: Point) -> Point:
        return Point(p.x + 1.0, p.label)

    @torch.jit.export
    def int_keys(self, d: Dict[int, str]) -> Dict[int, str]:
        d[100] = "added"
        return d

    @torch.jit.export
    def float_keys(self, d: Dict[float, int]) -> Dict[float, int]:
        return d

    @torch.jit.export
    def bool_keys(self, d: Dict[bool, int]) -> Dict[bool, int]:
        return d

    @torch.jit.export
    def tensor_keys(self, d: Dict[torch.Tensor, int]) -> int:
        total = 0
        for k, v in d.items():
            total += int(k.sum().item()) * v
        return total

    @torch.jit.export
    def maybe(self, x: Optional[int] = None) -> Optional[int]:
        if x is None:
            return None
        return x * 10

    @torch.jit.export
    def either(self, u: Union[int, str]) -> Union[int, str]:
        if isinstance(u, int):
            return u + 1
        return u + "!"

    @torch.jit.export
    def color(self, c: Color) -> Color:
        if c == Color.RED:
            return Color.GREEN
        return Color.RED

    @torch.jit.export
    def counter(self, start: int) -> Counter:
        return Counter(start)

    @torch.jit.export
    def scalars(self) -> Tuple[complex, torch.device, bool, str, float]:
        return complex(1.5, -2.0), torch.device("cpu"), True, "é✓", 0.25

    @torch.jit.export
    def append(self, xs: List[int]) -> None:
        xs.append(len(xs))

    @torch.jit.export
    def ints(self, xs: List[int]) -> int:
        return sum(xs)

    @torch.jit.export
    def tensors(self, n: int) -> Dict[str, torch.Tensor]:
        out: Dict[str, torch.Tensor] = {}
        for i in range(n):
            out["t" + str(i)] = torch.full([2], float(i))
        return out

    @torch.jit.export
    def words(self) -> List[str]:
        return ["a", "bc", "", "dé"]


class MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(3, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.tanh(self.fc(x))


class Dropout(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.dropout(x, 0.5, training=True)


def main():
    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    kinds = torch.jit.script(Kinds())
    torch.jit.save(kinds, str(out / "kinds.pt"))
    x = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    nested = {"a": [(1, 2.5), (2, None)], "b": []}
    expected = {
        "forward": kinds(x),
        "forward_kw": kinds(x, n=3),
        "forward_all_kw": kinds(x, scale=1.0, n=4),
        "nested": kinds.nested(nested),
        "point": tuple(kinds.point(Point(1.5, "a"))),
        "int_keys": kinds.int_keys({3: "c", 1: "a", 2: "b"}),
        "float_keys": kinds.float_keys({2.5: 1, -1.0: 2}),
        "bool_keys": kinds.bool_keys({True: 1, False: 0}),
        "tensor_keys": kinds.tensor_keys({torch.ones(2): 3, torch.zeros(2): 5}),
        "maybe_none": kinds.maybe(),
        "maybe_4": kinds.maybe(4),
        "either_int": kinds.either(4),
        "either_str": kinds.either("hi"),
        "color": kinds.color(Color.RED).value,
        "scalars": [kinds.scalars()[0].real, kinds.scalars()[0].imag, kinds.scalars()[3]],
        "ints": kinds.ints([1, 2, 3]),
        "words": kinds.words(),
    }
    torch.save(expected, str(out / "expected.pt"))

    torch.manual_seed(0)
    mlp = torch.jit.script(MLP())
    torch.jit.save(mlp, str(out / "mlp.pt"))
    mlp(torch.tensor([[1.0, 2.0, 3.0]])).sum().backward()
    torch.save({"fc.weight": mlp.fc.weight.grad, "fc.bias": mlp.fc.bias.grad},
               str(out / "grads.pt"))

    # Dropout left on: PyTorch's output after torch.manual_seed(7) (seed.rs).
    dropout = torch.jit.script(Dropout())
    torch.jit.save(dropout, str(out / "dropout.pt"))
    torch.manual_seed(7)
    torch.save({"seed_7": dropout(torch.arange(1.0, 65.0))}, str(out / "dropout_expected.pt"))


main()
