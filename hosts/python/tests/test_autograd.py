"""Autograd and module state from Python: gradients through tsbridge equal
PyTorch's on the same module and inputs; train/eval; the module's own
parameters; attributes, children, code and graph (docs/autograd.md)."""
import os
import tempfile

import pytest
import torch

import tsbridge
from fixtures import Net


@pytest.fixture()
def saved():
    torch.manual_seed(0)
    work = os.environ.get("TSB_PY_TEST_WORK") or tempfile.mkdtemp(prefix="tsb_py_")
    os.makedirs(work, exist_ok=True)
    path = os.path.join(work, "autograd_net.pt")
    torch.jit.script(Net().double()).save(path)
    return path


def test_gradients_equal_pytorchs(saved):
    x = torch.randn(5, 4, dtype=torch.float64)
    ours = tsbridge.load(saved).eval()
    xt = tsbridge.Tensor(x.clone(), requires_grad=True)
    y = ours(xt)
    assert isinstance(y, tsbridge.Tensor) and y.requires_grad
    loss = tsbridge.ops.aten.sum(tsbridge.ops.aten.mul(y, y))
    loss.backward()

    theirs = torch.jit.load(saved).eval()
    xp = x.clone().requires_grad_()
    (theirs(xp) ** 2).sum().backward()
    assert torch.allclose(xt.grad.torch(), xp.grad, rtol=1e-12, atol=1e-12)
    want = dict(theirs.named_parameters())
    got = ours.named_parameters()
    assert [n for n, _ in got] == list(want)
    for name, p in got:
        assert torch.allclose(p.grad.torch(), want[name].grad, rtol=1e-12, atol=1e-12), name


def test_backward_with_output_gradients_and_retain_graph(saved):
    x = torch.randn(5, 4, dtype=torch.float64)
    g = torch.randn(5, 3, dtype=torch.float64)
    m = tsbridge.load(saved).eval()
    y = m(tsbridge.Tensor(x))
    tsbridge.autograd.backward([y], [g], retain_graph=True)
    first = m.named_parameters()[0][1].grad.torch().clone()
    tsbridge.autograd.backward(y, g)
    assert torch.allclose(m.named_parameters()[0][1].grad.torch(), 2 * first)
    with pytest.raises(tsbridge.TorchError):
        y.backward(g)
    with pytest.raises(tsbridge.InvalidArgumentError) as e:
        tsbridge.load(saved).eval()(tsbridge.Tensor(x)).backward()  # 5 x 3 needs a gradient
    assert e.value.path == "grad_outputs[0]"


def test_sgd_step_changes_the_module_and_no_grad_records_nothing(saved):
    m = tsbridge.load(saved).eval()
    x = torch.randn(5, 4, dtype=torch.float64)
    before = m(x)  # plain tensors in: a torch.Tensor out, as before
    assert isinstance(before, torch.Tensor)
    loss = tsbridge.ops.aten.sum(m(tsbridge.Tensor(x)))
    loss.backward()
    with tsbridge.autograd.no_grad():
        assert not tsbridge.autograd.is_grad_enabled()
        for p in m.parameters():
            tsbridge.ops.aten.sub_(p, p.grad, alpha=0.5)
        # No graph recorded, so it crosses as DLPack. (An operator: a scripted
        # module first run with grad keeps a differentiable plan whose
        # outputs require grad even under no_grad, in PyTorch 1.13 too.)
        y = tsbridge.ops.aten.mul(tsbridge.Tensor(x, requires_grad=True), 2.0)
        assert isinstance(y, torch.Tensor)
    assert tsbridge.autograd.is_grad_enabled()
    with torch.no_grad():  # one LibTorch in the process: one thread-local flag
        assert not tsbridge.autograd.is_grad_enabled()
    assert not torch.allclose(m(x), before)
    bias = m.named_parameters()[3][1]
    bias.zero_grad()
    assert torch.count_nonzero(bias.grad.torch()) == 0
    assert not bias.detach().requires_grad


def test_eval_makes_dropout_the_identity_and_train_does_not(saved):
    m = tsbridge.load(saved)
    x = torch.randn(64, 4, dtype=torch.float64)
    assert m.training and m.drop.training
    assert not torch.equal(m(x), m(x))
    assert m.eval() is m and not m.training and not m.drop.training
    assert torch.equal(m(x), m(x))
    assert torch.allclose(m(x), torch.jit.load(saved).eval()(x))
    m.train()
    assert m.drop.training and not torch.equal(m(x), m(x))


def test_attributes_children_code_graph(saved):
    m = tsbridge.load(saved)
    assert m.note == "hello"
    m.set_attribute("note", "bye")
    assert m.get_attribute("note") == "bye"
    with pytest.raises(tsbridge.TypeMismatchError) as e:
        m.set_attribute("note", 3)
    assert e.value.path == "attribute 'note'"
    assert [n for n, _ in m.named_children()] == ["fc1", "drop", "fc2"]
    assert [n for n, _ in m.fc1.named_parameters()] == ["weight", "bias"]
    assert "training" in m.attribute_names()
    assert "def forward(self" in m.code
    assert "graph(%self" in m.graph
    with pytest.raises(AttributeError):
        m.nope
