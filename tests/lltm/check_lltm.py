"""Checks of examples/lltm against PyTorch, run by ctest (tests/lltm/).

    check_lltm.py gradcheck   --plugin lltm.so
    check_lltm.py tsb-run     --plugin lltm.so --tsb TSB --work DIR
    check_lltm.py c-host      --plugin lltm.so --host lltm_host --work DIR
    check_lltm.py python-host --plugin lltm.so
    check_lltm.py r-host      --plugin lltm.so --rscript RSCRIPT --host host.R --work DIR

Every check compares with a pure PyTorch LLTM (`reference` below), written
from the tutorial's Python version, never with the plugin itself.
"""
import argparse
import json
import os
import subprocess
import sys

import torch
import torch.nn.functional as F

FEATURES, STATE, BATCH = 3, 4, 5
STEPS, LR = 5, 0.05


def reference(input, weights, bias, old_h, old_cell):
    X = torch.cat([old_h, input], 1)
    gates = F.linear(X, weights, bias).chunk(3, dim=1)
    input_gate, output_gate = torch.sigmoid(gates[0]), torch.sigmoid(gates[1])
    candidate_cell = F.elu(gates[2])
    new_cell = old_cell + candidate_cell * input_gate
    return torch.tanh(new_cell) * output_gate, new_cell


def start(dtype=torch.float64):
    g = torch.Generator().manual_seed(15)
    t = lambda *shape: torch.randn(*shape, generator=g, dtype=dtype)  # noqa: E731
    return {"input": t(BATCH, FEATURES), "weights": t(3 * STATE, STATE + FEATURES) * 0.5,
            "bias": t(3 * STATE) * 0.1, "old_h": t(BATCH, STATE), "old_cell": t(BATCH, STATE),
            "target": t(BATCH, STATE)}


def to_json(t):
    return {"dtype": str(t.dtype).replace("torch.", ""), "shape": list(t.shape),
            "data": t.flatten().tolist()}


def from_json(j):
    return torch.tensor(j["data"], dtype=getattr(torch, j["dtype"])).reshape(j["shape"])


def expect_close(label, got, want, tol=1e-10):
    if not torch.allclose(got, want, rtol=tol, atol=tol):
        sys.exit(f"{label}: got\n{got}\nwant\n{want}")
    print(f"{label}: ok")


def gradcheck(args):
    torch.ops.load_library(args.plugin)
    s = start()
    inputs = tuple(s[k].clone().requires_grad_() for k in
                   ("input", "weights", "bias", "old_h", "old_cell"))
    assert torch.autograd.gradcheck(torch.ops.lltm.cell, inputs), "gradcheck failed"
    print("gradcheck: ok")
    # The hand-written backward equals autograd through the reference.
    h, c = torch.ops.lltm.cell(*inputs)
    mine = torch.autograd.grad((h * s["target"]).sum() + c.sum(), inputs)
    ref_inputs = tuple(t.detach().clone().requires_grad_() for t in inputs)
    h, c = reference(*ref_inputs)
    theirs = torch.autograd.grad((h * s["target"]).sum() + c.sum(), ref_inputs)
    for name, a, b in zip(("input", "weights", "bias", "old_h", "old_cell"), mine, theirs):
        expect_close(f"d {name}", a, b)


class Cell(torch.nn.Module):
    def __init__(self, weights, bias):
        super().__init__()
        self.weights = torch.nn.Parameter(weights)
        self.bias = torch.nn.Parameter(bias)

    def forward(self, input, old_h, old_cell):
        return torch.ops.lltm.cell(input, self.weights, self.bias, old_h, old_cell)


def tsb_run(args):
    torch.ops.load_library(args.plugin)
    s = start()
    os.makedirs(args.work, exist_ok=True)
    example = (s["input"], s["old_h"], s["old_cell"])
    scripted = torch.jit.script(Cell(s["weights"], s["bias"]))
    traced = torch.jit.trace(Cell(s["weights"], s["bias"]), example)
    if "lltm::cell" not in str(traced.graph):
        sys.exit(f"the traced graph does not call lltm::cell as one node:\n{traced.graph}")
    want = reference(s["input"], s["weights"], s["bias"], s["old_h"], s["old_cell"])
    for name, module in (("scripted", scripted), ("traced", traced)):
        path = os.path.join(args.work, f"lltm_{name}.pt")
        module.save(path)
        out = subprocess.run(
            [args.tsb, "--plugin", args.plugin, "run", path, "forward", "--args",
             json.dumps([to_json(t) for t in example])],
            capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit(f"tsb run {name} failed: {out.stderr}")
        result = json.loads(out.stdout)
        for i, label in enumerate(("new_h", "new_cell")):
            expect_close(f"tsb run {name}: {label}", from_json(result[i]), want[i].detach())


def train_in_pytorch(s):
    weights = s["weights"].clone().requires_grad_()
    bias = s["bias"].clone().requires_grad_()
    losses = []
    for _ in range(STEPS):
        h, _ = reference(s["input"], weights, bias, s["old_h"], s["old_cell"])
        loss = ((h - s["target"]) ** 2).sum()
        weights.grad = bias.grad = None
        loss.backward()
        losses.append(loss.item())
        with torch.no_grad():
            weights -= LR * weights.grad
            bias -= LR * bias.grad
    return losses, weights.detach(), bias.detach()


def host_training(args, command, record_line):
    """Runs a host's LLTM training (`command` + start.json STEPS LR) and
    compares its losses and trained weights with PyTorch's."""
    s = start()
    os.makedirs(args.work, exist_ok=True)
    path = os.path.join(args.work, "lltm_start.json")
    with open(path, "w") as f:
        json.dump({k: to_json(v) for k, v in s.items()}, f)
    out = subprocess.run(command + [args.plugin, path, str(STEPS), str(LR)],
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"{command} failed: {out.stderr}")
    print(out.stdout)
    lines = [l.rstrip() for l in out.stdout.splitlines()]
    if record_line not in lines:
        sys.exit(f"the host did not print {record_line!r}")
    losses = [float(l.split()[2]) for l in lines if l.startswith("loss ")]
    got = {l.split(" ", 1)[0]: from_json(json.loads(l.split(" ", 1)[1]))
           for l in lines if l.startswith(("weights ", "bias "))}
    want_losses, want_w, want_b = train_in_pytorch(s)
    if not all(b < a for a, b in zip(losses, losses[1:])) or len(losses) != STEPS:
        sys.exit(f"the loss did not go down at every step: {losses}")
    expect_close("losses", torch.tensor(losses), torch.tensor(want_losses))
    expect_close("trained weights", got["weights"], want_w)
    expect_close("trained bias", got["bias"], want_b)


def c_host(args):
    host_training(args, [args.host], "function lltm::cell returns: lltm.state(h, cell)")


def r_host(args):
    # The operator's schema names its NamedTuple's fields.
    host_training(args, [args.rscript, args.host],
                  "operator lltm::cell returns: torch.return_types.cell(new_h, new_cell)")


def python_host(args):
    import tsbridge
    tsbridge.load_plugin(args.plugin)
    s = start()
    cell_args = [s[k] for k in ("input", "weights", "bias", "old_h", "old_cell")]
    want = reference(*cell_args)
    out = tsbridge.ops.lltm.cell(*cell_args)  # the operator
    expect_close("tsbridge.ops.lltm.cell new_h", out.new_h, want[0])
    expect_close("tsbridge.ops.lltm.cell new_cell", out.new_cell, want[1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("check", choices=["gradcheck", "tsb-run", "c-host", "python-host", "r-host"])
    parser.add_argument("--plugin", required=True)
    parser.add_argument("--tsb")
    parser.add_argument("--host")
    parser.add_argument("--rscript")
    parser.add_argument("--work", default=".")
    args = parser.parse_args()
    {"gradcheck": gradcheck, "tsb-run": tsb_run, "c-host": c_host,
     "python-host": python_host, "r-host": r_host}[args.check](args)


if __name__ == "__main__":
    main()
