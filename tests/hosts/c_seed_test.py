"""Seeding from C (docs/runtime.md, "Seeding"): call_from_c with TSB_SEED=N
calls aten::manual_seed, then a module whose dropout stays on; the same seed
gives the same output, another another, and PyTorch's own for the seed.

Usage: c_seed_test.py CALL_FROM_C WORK_DIR
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import torch


class Dropout(torch.nn.Module):
    # Its input made inside: call_from_c reads its arguments untyped, and an
    # untyped JSON object is a Dict, not a tensor.
    def forward(self, n: int) -> torch.Tensor:
        x = torch.arange(1.0, n + 1.0)
        return torch.nn.functional.dropout(x, 0.5, training=True)


def main(call_from_c, work):
    work = Path(work)
    work.mkdir(parents=True, exist_ok=True)
    module = torch.jit.script(Dropout())
    module.save(str(work / "dropout.pt"))
    args = "[64]"

    def ours(seed):
        out = subprocess.run([call_from_c, str(work / "dropout.pt"), "forward", args],
                             env=dict(os.environ, TSB_SEED=str(seed)), capture_output=True,
                             text=True, check=True).stdout
        return json.loads(out)["data"]

    torch.manual_seed(7)
    pytorch = module(64).tolist()
    seven = ours(7)
    checks = {"the same seed, the same output": ours(7) == seven,
              "another seed, another output": ours(8) != seven,
              "PyTorch's output for the seed": seven == pytorch}
    for what, ok in checks.items():
        print(("ok     " if ok else "FAILED ") + what)
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
