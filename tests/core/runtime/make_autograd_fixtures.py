"""Scripts the module the autograd and module-state tests load, and writes
the gradients PyTorch computes for it (the tests compare the ABI's with
these).

Run by CMake at build time: python3 make_autograd_fixtures.py OUTPUT_DIR
(the module is the shared Net of tests/testing/fixtures.py). Writes
net.pt (torch.jit.save), expected.pt (torch.save of a Dict[str, Tensor]),
other_state.pt (another Net's state_dict), state_keys.txt (its keys in
PyTorch's order) and graph_for.txt (PyTorch's graph_for(x) of net.pt).
Without an importable torch this fails loudly, never skips.
"""
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "testing"))
from fixtures import Net  # noqa: E402
import torch  # noqa: E402


def grads(module, prefix, out, x=None):
    for name, p in module.named_parameters():
        out[f"{prefix}.{name}"] = p.grad.detach().clone()
    if x is not None:
        out[f"{prefix}.x"] = x.grad.detach().clone()
    module.zero_grad(set_to_none=True)


def main(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    torch.manual_seed(0)
    net = torch.jit.script(Net().double())
    net.save(os.path.join(out_dir, "net.pt"))
    net.eval()
    expected = {}
    x = torch.randn(5, 4, dtype=torch.float64)
    expected["x"] = x.clone()

    # forward with an output gradient, in eval mode (dropout is the identity)
    xg = x.clone().requires_grad_()
    y = net(xg)
    g = torch.randn_like(y)
    expected["g"] = g
    expected["y_eval"] = y.detach().clone()
    y.backward(g)
    grads(net, "forward", expected, xg)

    # a scalar loss computed after the call: (y * y).sum(), no output gradient
    y = net(x)
    (y * y).sum().backward()
    grads(net, "loss", expected)

    # two outputs at once, each with its gradient
    xg = x.clone().requires_grad_()
    s, z = net.two(xg)
    gs, gz = torch.randn_like(s), torch.randn_like(z)
    expected["gs"], expected["gz"] = gs, gz
    torch.autograd.backward([s, z], [gs, gz])
    grads(net, "two", expected, xg)

    # Another Net's state_dict (a plain dict: LibTorch's unpickler reads
    # that), its keys in PyTorch's order, and what the loaded net computes.
    torch.manual_seed(1)
    other = torch.jit.script(Net().double()).eval()
    torch.save(dict(other.state_dict()), os.path.join(out_dir, "other_state.pt"))
    with open(os.path.join(out_dir, "state_keys.txt"), "w") as f:
        f.write(" ".join(other.state_dict().keys()))
    expected["y_other"] = other(x).detach().clone()

    # graph_for(x) of a freshly loaded net in eval mode: its first run.
    fresh = torch.jit.load(os.path.join(out_dir, "net.pt")).eval()
    with open(os.path.join(out_dir, "graph_for.txt"), "w") as f:
        f.write(str(fresh.graph_for(x)))

    torch.save(expected, os.path.join(out_dir, "expected.pt"))


if __name__ == "__main__":
    main(sys.argv[1])
