"""Scripts the module the R host's autograd tests train and differentiate
(autograd_net.pt) and writes PyTorch's own gradients for the same inputs
(autograd_expected.json, tensors in tsbridge's JSON form), with
/usr/bin/python3's torch. Usage: autograd_fixtures.py WORK_DIR"""
import json
import sys
from pathlib import Path

# The shared fixtures (tests/testing/fixtures.py in the source tree).
sys.path.insert(0, str(Path(__file__).resolve().parents[4] / "tests" / "testing"))
from fixtures import Net, tensor_json as to_json  # noqa: E402
import torch  # noqa: E402


def gradients(net, x):
    """name -> gradient of every parameter and of x, then resets them."""
    out = {f"grad.{n}": p.grad.clone() for n, p in net.named_parameters()}
    out["grad.x"] = x.grad.clone()
    for p in list(net.parameters()) + [x]:
        p.grad = None
    return out


def main(work):
    torch.manual_seed(15)
    net = torch.jit.script(Net().double())
    net.save(str(work / "autograd_net.pt"))
    net.eval()  # dropout is the identity: the R host's eval run is comparable
    g = torch.Generator().manual_seed(5)
    x = torch.randn(5, 4, generator=g, dtype=torch.float64).requires_grad_()
    grad_y = torch.randn(5, 3, generator=g, dtype=torch.float64)
    expected = {"x": x, "grad_y": grad_y}
    y = net(x)
    expected["y"] = y
    y.backward(grad_y)  # 1. one output with its gradient
    expected.update({k + ".output": v for k, v in gradients(net, x).items()})
    y = net(x)
    torch.autograd.backward([y, (y * y).sum()], [grad_y, None])  # 2. two outputs
    expected.update({k + ".two": v for k, v in gradients(net, x).items()})
    net(x).backward(grad_y)  # 3. one SGD step, then the module's new output
    with torch.no_grad():
        for p in net.parameters():
            p.add_(p.grad, alpha=-0.1)
    expected["y.after_step"] = net(x)
    with open(work / "autograd_expected.json", "w") as f:
        json.dump({k: to_json(v) for k, v in expected.items()}, f)


if __name__ == "__main__":
    work = Path(sys.argv[1])
    work.mkdir(parents=True, exist_ok=True)
    main(work)
