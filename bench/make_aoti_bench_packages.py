"""The .pt2 packages bench/aoti_benchmark.cc and python_host_bench.py call
(docs/export.md): mlp.pt2, mlp_mid.pt2 and mlp_tiny.pt2, small MLPs
(64-128-10 batch 8, 32-64-8 and 16-32-4 batch 4) whose runs bracket what
PyTorch's Python caller spends flattening, where both speed goals can
hold; small.pt2,
x + 1 on one tensor (the fixed cost of a call); dict100.pt2, a dict of 100
tensors in and out. Usage: make_aoti_bench_packages.py OUTDIR (LibTorch 2.6;
about a minute, so built only by scripts/bench.sh, target bench_fixtures)."""
import pathlib
import sys

import torch

out = pathlib.Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)


class Small(torch.nn.Module):
    def forward(self, x):
        return x + 1


class Mlp(torch.nn.Module):
    def __init__(self, inputs, hidden, outputs):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(inputs, hidden), torch.nn.ReLU(),
                                       torch.nn.Linear(hidden, outputs))

    def forward(self, x):
        return self.net(x)


class Dict100(torch.nn.Module):
    def forward(self, d):
        return {k: v + 1 for k, v in d.items()}


with torch.no_grad():
    for name, model, args in [
        ("mlp", Mlp(64, 128, 10).eval(), (torch.rand(8, 64),)),
        ("mlp_tiny", Mlp(16, 32, 4).eval(), (torch.rand(4, 16),)),
        ("mlp_mid", Mlp(32, 64, 8).eval(), (torch.rand(4, 32),)),
        ("small", Small(), (torch.rand(16),)),
        ("dict100", Dict100(), ({f"k{i}": torch.rand(4) for i in range(100)},)),
    ]:
        program = torch.export.export(model, args)
        torch._inductor.aoti_compile_and_package(program, package_path=str(out / f"{name}.pt2"))
(out / "stamp").write_text(f"compiled with torch {torch.__version__}\n")
