"""tsb run --seed N: a module whose dropout stays on gives the same output
for the same seed, another for another seed, and PyTorch's own output after
torch.manual_seed(N) (docs/cli.md, "--seed").

Usage: cli_seed_test.py TSB WORK_DIR
"""
import json
import subprocess
import sys
from pathlib import Path

import torch


class Dropout(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.dropout(x, 0.5, training=True)


def main(tsb, work):
    work = Path(work)
    work.mkdir(parents=True, exist_ok=True)
    module = torch.jit.script(Dropout())
    module.save(str(work / "dropout.pt"))
    x = torch.arange(1.0, 65.0).reshape(8, 8)
    args = json.dumps([{"dtype": "float32", "shape": [8, 8], "data": x.flatten().tolist()}])

    def run(*options):
        out = subprocess.run([tsb, "run", str(work / "dropout.pt"), "--args", args, *options],
                             capture_output=True, text=True, check=True).stdout
        return json.loads(out)["data"]

    def pytorch(seed):
        torch.manual_seed(seed)
        return module(x).flatten().tolist()

    seven = run("--seed", "7")
    failures = []
    if run("--seed", "7") != seven:
        failures.append("the same seed gave another output")
    if run("--seed", "8") == seven:
        failures.append("another seed gave the same output")
    if seven != pytorch(7):
        failures.append(f"--seed 7 differs from PyTorch's own:\n  {seven}\n  {pytorch(7)}")
    if run("--seed", "8") != pytorch(8):
        failures.append("--seed 8 differs from PyTorch's own")
    # Two lines of --jsonl continue one stream, as two calls in PyTorch do.
    lines = subprocess.run([tsb, "run", str(work / "dropout.pt"), "--seed", "7", "--jsonl"],
                           input=f"{args}\n{args}\n", capture_output=True, text=True,
                           check=True).stdout.splitlines()
    torch.manual_seed(7)
    expected = [module(x).flatten().tolist() for _ in range(2)]
    if [json.loads(line)["result"]["data"] for line in lines] != expected:
        failures.append("--jsonl with --seed differs from two calls in PyTorch")
    for failure in failures:
        print("FAILED", failure)
    print(f"{5 - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
