"""The torch fast path (docs/python.md): with the companion tsbridge._torch a
torch.Tensor crosses as itself, so autograd crosses too, compared here with
PyTorch's own call of the same module in the same process. ctest runs this
directory twice: as python_host (the fast path, where it is built) and as
python_host_dlpack (TSB_PYTHON_NO_TORCH_FASTPATH=1: DLPack), so every other
test covers both paths."""
import glob
import os

import pytest
import torch

import tsbridge

DISABLED = os.environ.get("TSB_PYTHON_NO_TORCH_FASTPATH", "") not in ("", "0")
BUILT = bool(glob.glob(os.path.join(os.path.dirname(tsbridge.__file__), "_torch*.so")))
fast_only = pytest.mark.skipif(not tsbridge.TORCH_FASTPATH, reason="DLPack path")
dlpack_only = pytest.mark.skipif(tsbridge.TORCH_FASTPATH, reason="fast path")


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.tanh(self.fc(x)) * x.sum()

    @torch.jit.export
    def same(self, x: torch.Tensor) -> torch.Tensor:
        return x

    @torch.jit.export
    def pair(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return x * y, x + y


@pytest.fixture(scope="module")
def net(tmp_path_factory):
    """(PyTorch's torch.jit.load, tsbridge.load) of one saved module."""
    torch.manual_seed(0)
    path = str(tmp_path_factory.mktemp("fastpath") / "net.pt")
    torch.jit.save(torch.jit.script(Net()), path)
    return torch.jit.load(path), tsbridge.load(path)


def test_the_path_is_the_one_asked_for():
    if DISABLED:
        assert not tsbridge.TORCH_FASTPATH
        assert "TSB_PYTHON_NO_TORCH_FASTPATH" in tsbridge.TORCH_FASTPATH_REASON
    elif BUILT:  # built and not disabled: it must load
        assert tsbridge.TORCH_FASTPATH, tsbridge.TORCH_FASTPATH_REASON
    else:
        assert not tsbridge.TORCH_FASTPATH and tsbridge.TORCH_FASTPATH_REASON


@fast_only
def test_backward_fills_the_inputs_grad_as_pytorchs_call_does(net):
    theirs, ours = net
    x = torch.randn(5, 4)
    want_x = x.clone().requires_grad_()
    want = theirs(want_x)
    want.sum().backward()
    got_x = x.clone().requires_grad_()
    got = ours(got_x)
    assert type(got) is torch.Tensor and got.requires_grad
    assert type(got.grad_fn).__name__ == type(want.grad_fn).__name__
    assert torch.equal(got, want)
    got.sum().backward()
    assert got_x.grad is not None and torch.allclose(got_x.grad, want_x.grad)
    # The module's own parameters got theirs too, equal to PyTorch's.
    want_grads = {n: p.grad for n, p in theirs.named_parameters()}
    for name, p in ours.named_parameters():
        assert torch.allclose(p.grad.torch(), want_grads[name]), name


@fast_only
def test_grad_flows_through_several_outputs_and_calls(net):
    theirs, ours = net
    a, b = torch.randn(3, requires_grad=True), torch.randn(3, requires_grad=True)
    a2, b2 = a.detach().clone().requires_grad_(), b.detach().clone().requires_grad_()
    p, s = theirs.pair(a, b)
    (p * s).sum().backward()
    p2, s2 = ours.pair(a2, b2)
    q, _ = ours.pair(p2, s2)  # a second call on the first's outputs
    q.sum().backward()
    assert torch.allclose(a2.grad, a.grad) and torch.allclose(b2.grad, b.grad)


@fast_only
def test_the_same_python_object_and_its_state_come_back(net):
    _, ours = net
    x = torch.ones(3, requires_grad=True)
    assert ours.same(x) is x
    param = torch.nn.Parameter(torch.ones(2))
    assert ours.same(param) is param  # a subclass keeps its class
    flags = torch.tensor([True, False])  # bool: no uint8 detour
    assert ours.same(flags) is flags


@fast_only
def test_no_grad_in_python_holds_for_the_call(net):
    _, ours = net
    x = torch.randn(2, 4, requires_grad=True)
    with torch.no_grad():
        y = ours(x)
    assert not y.requires_grad and y.grad_fn is None


@fast_only
def test_results_share_storage_and_views_stay_views():
    x = torch.arange(6.0)
    t = tsbridge.ops.aten.view(x, [2, 3])
    assert t._base is x and t.data_ptr() == x.data_ptr()  # PyTorch's own view of x


@dlpack_only
def test_dlpack_carries_data_not_the_graph(net):
    theirs, ours = net
    x = torch.randn(5, 4, requires_grad=True)
    got = ours(x)
    assert torch.equal(got, theirs(x).detach())
    assert not got.requires_grad and got.grad_fn is None  # docs/python.md says so
