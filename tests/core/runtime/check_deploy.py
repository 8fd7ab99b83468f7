"""Train in a host, deploy anywhere: runs examples/train_deploy's C host
(or its R script), which trains an MLP through the ABI's autograd and
traces it in eval mode, then loads its module with torch.jit.load and
checks that PyTorch predicts what the host predicted and that the graph has
no dropout.

    check_deploy.py TSB_TRAIN_MLP WORK_DIR
    check_deploy.py Rscript examples/train_deploy/train.R WORK_DIR
"""
import json
import os
import subprocess
import sys

import torch


def from_json(j):
    return torch.tensor(j["data"], dtype=getattr(torch, j["dtype"])).reshape(j["shape"])


def main(host, work):
    os.makedirs(work, exist_ok=True)
    run = subprocess.run(host + [work], capture_output=True, text=True)
    print(run.stdout)
    if run.returncode != 0:
        sys.exit(f"{host} failed ({run.returncode}): {run.stderr}")
    with open(os.path.join(work, "predictions.json")) as f:
        saved = json.load(f)
    x, host_predictions = from_json(saved["x"]), from_json(saved["predictions"])
    module = torch.jit.load(os.path.join(work, "mlp.pt"))
    graph = str(module.graph)
    if "dropout" in graph or "dropout" in module.code:
        sys.exit(f"the deployed graph has a dropout:\n{graph}")
    for op in ("aten::linear", "aten::relu"):
        if op not in graph:
            sys.exit(f"the deployed graph has no {op}:\n{graph}")
    with torch.no_grad():
        predicted = module(x)
    if not torch.allclose(predicted, host_predictions, rtol=1e-12, atol=1e-12):
        sys.exit(f"PyTorch predicts\n{predicted}\nthe host predicted\n{host_predictions}")
    print(f"torch.jit.load predicts what the host predicted ({x.shape[0]} points); no dropout")


if __name__ == "__main__":
    main(sys.argv[1:-1], sys.argv[-1])
