#!/usr/bin/env python3
"""N calls of a scripted method taking and returning a Dict[str, Tensor] of
100 through the Python host, for counting its instructions with callgrind
(docs/benchmarks.md, "Where the time goes"): the count does not move with
the machine's load, as the timed ratio does.

  PYTHONPATH=build/python valgrind --tool=callgrind --toggle-collect='*CallCaller*' \
      /usr/bin/python3 bench/python_dict_loop.py 200
  callgrind_annotate --inclusive=yes callgrind.out.<pid>

Only the host's call entry (CallCaller) is counted: one warm-up call, then N.
"""
import sys
import tempfile
from typing import Dict

import torch

import tsbridge


class Same(torch.nn.Module):
    def forward(self, d: Dict[str, torch.Tensor]) -> Dict[str, torch.Tensor]:
        return d


def main():
    path = tempfile.mktemp(suffix=".pt")
    torch.jit.save(torch.jit.script(Same()), path)
    m = tsbridge.load(path)
    d = {f"k{i}": torch.ones(4) for i in range(100)}
    m.forward(d)  # warm-up: the graph executor's first run
    for _ in range(int(sys.argv[1]) if len(sys.argv) > 1 else 200):
        m.forward(d)


if __name__ == "__main__":
    main()
