#!/usr/bin/python3
"""The repository bench/serve_bench.py serves (REPOSITORY/NAME/1/model.pt,
docs/serve.md): linear, a Linear(4, 3); dict, forward(d: Dict[str, Tensor])
-> Dict[str, Tensor], each tensor doubled; noop, forward(x) -> x.

Usage: make_serve_bench_models.py REPOSITORY
"""
import os
import sys
from typing import Dict

import torch
from torch import Tensor


class Linear(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(4, 3)

    def forward(self, x: Tensor) -> Tensor:
        return self.linear(x)


class Doubled(torch.nn.Module):
    def forward(self, d: Dict[str, Tensor]) -> Dict[str, Tensor]:
        out: Dict[str, Tensor] = {}
        for k, v in d.items():
            out[k] = v * 2
        return out


class Noop(torch.nn.Module):
    def forward(self, x: Tensor) -> Tensor:
        return x


def main(repository):
    torch.manual_seed(0)
    for name, module in (("linear", Linear()), ("dict", Doubled()), ("noop", Noop())):
        directory = os.path.join(repository, name, "1")
        os.makedirs(directory, exist_ok=True)
        torch.jit.script(module).save(os.path.join(directory, "model.pt"))


if __name__ == "__main__":
    main(sys.argv[1])
