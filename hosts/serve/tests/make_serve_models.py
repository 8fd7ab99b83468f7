"""The model repository tsb serve's tests serve, scripted by PyTorch:
REPOSITORY/NAME/VERSION/model.pt (docs/serve.md).

  linear/1   forward(x: Tensor) -> Tensor, a Linear(4, 3); config.json
             declares x as FP32 [-1, 4]
  add/1, /2  forward(x, y) -> Tensor: x + y, then x - y (versions)
  kinds/1    one argument and one result of each kind, as typed JSON
  slow/1     forward(x, n: int): n additions, to hold a worker busy
  anything/1 forward(x: Any) -> Any: x itself
  exported/1 model.pt2, an AOTInductor package (torch.export) returning a
             dict; only where torch has AOTInductor (not Debian 12's 1.13)

Usage: make_serve_models.py REPOSITORY
"""
import json
import os
import sys
from typing import Any, Dict, List, NamedTuple, Optional, Tuple, Union

import torch
from torch import Tensor


class Pair(NamedTuple):
    first: Tensor
    second: int


class Kinds(torch.nn.Module):
    def forward(self, d: Dict[str, Tensor], t: Tuple[int, str], xs: List[List[int]],
                o: Optional[float], u: Union[int, str], s: str, words: List[str], p: Pair,
                nested: Dict[str, List[Tuple[int, Tensor]]], f: float, b: bool,
                n: int = 3) -> Tuple[Dict[str, Tensor], Tuple[str, int], List[List[int]],
                                     Optional[float], Union[int, str], str, List[str], Pair,
                                     Dict[str, List[Tuple[int, Tensor]]], float, bool, Tensor]:
        doubled: Dict[str, Tensor] = {}
        total = torch.zeros(1)
        for k, v in d.items():
            doubled[k] = v * 2
            total = total + v.sum()
        scaled = [[x * 10 for x in row] for row in xs]
        o2: Optional[float] = None
        if o is not None:
            o2 = o * 2.0
        u2: Union[int, str] = 0
        if isinstance(u, int):
            u2 = u + 1
        else:
            u2 = u + "?"
        nested2: Dict[str, List[Tuple[int, Tensor]]] = {}
        for k, items in nested.items():
            nested2[k] = [(i + 1, x * i) for i, x in items]
        return (doubled, (t[1] + "!", t[0] + n), scaled, o2, u2, s.upper(),
                [w + s for w in words], Pair(p.first + 1, p.second * 3), nested2, f * n,
                not b, total)


class Linear(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(4, 3)

    def forward(self, x: Tensor) -> Tensor:
        return self.linear(x)


class Add(torch.nn.Module):
    def forward(self, x: Tensor, y: Tensor) -> Tensor:
        return x + y


class Subtract(torch.nn.Module):
    def forward(self, x: Tensor, y: Tensor) -> Tensor:
        return x - y


class Anything(torch.nn.Module):
    def forward(self, x: Any) -> Any:
        return x


class Slow(torch.nn.Module):
    def forward(self, x: Tensor, n: int) -> Tensor:
        for _ in range(n):
            x = x + 1
        return x


class Exported(torch.nn.Module):
    def forward(self, x, pair):
        return {"sum": x + pair[0], "prod": x * pair[1]}


def save_exported(repository):
    try:
        from torch._inductor import aoti_compile_and_package
    except ImportError:
        return  # torch 1.13: no torch.export, and LibTorch 1.13 cannot load .pt2
    directory = os.path.join(repository, "exported", "1")
    os.makedirs(directory, exist_ok=True)
    x = torch.randn(3)
    with torch.no_grad():
        program = torch.export.export(Exported(), (x, (x, x)))
        aoti_compile_and_package(program, package_path=os.path.join(directory, "model.pt2"))


def save(module, repository, name, version):
    directory = os.path.join(repository, name, str(version))
    os.makedirs(directory, exist_ok=True)
    torch.jit.script(module).save(os.path.join(directory, "model.pt"))


def main(repository):
    torch.manual_seed(0)
    save(Linear(), repository, "linear", 1)
    with open(os.path.join(repository, "linear", "config.json"), "w") as f:
        json.dump({"inputs": [{"name": "x", "datatype": "FP32", "shape": [-1, 4]}],
                   "outputs": [{"name": "OUTPUT__0", "datatype": "FP32", "shape": [-1, 3]}]}, f)
    save(Add(), repository, "add", 1)
    save(Subtract(), repository, "add", 2)
    save(Kinds(), repository, "kinds", 1)
    save(Slow(), repository, "slow", 1)
    save(Anything(), repository, "anything", 1)
    save_exported(repository)


if __name__ == "__main__":
    main(sys.argv[1])
