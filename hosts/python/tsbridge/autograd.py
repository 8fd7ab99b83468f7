"""Autograd through tsbridge's C ABI (docs/autograd.md).

    import tsbridge
    m = tsbridge.load("model.pt")
    params = dict(m.named_parameters())      # tsbridge.Tensor, the module's own
    x = tsbridge.Tensor(torch.randn(5, 4))   # a handle: calls keep the graph
    loss = tsbridge.ops.aten.sum(m(x))
    tsbridge.autograd.backward([loss])       # or loss.backward()
    with tsbridge.autograd.no_grad():
        for p in params.values():
            tsbridge.ops.aten.sub_(p, p.grad, alpha=0.1)
"""
import contextlib

from . import _native
from ._types import Tensor  # noqa: F401


def backward(outputs, grad_outputs=None, retain_graph=False):
    """torch.autograd.backward for tsbridge tensors: gradients accumulate into
    the .grad of the leaves. ``grad_outputs`` is None (one-element outputs)
    or one tensor (or None) per output."""
    if isinstance(outputs, Tensor):
        outputs = [outputs]
    if grad_outputs is not None and not isinstance(grad_outputs, (list, tuple)):
        grad_outputs = [grad_outputs]
    _native.backward(list(outputs), grad_outputs, bool(retain_graph))


def is_grad_enabled():
    """The calling thread's grad mode in LibTorch. With Debian's python3-torch,
    torch and tsbridge load one LibTorch, so this is the very flag
    torch.no_grad() sets (hosts/python/tests/test_autograd.py checks it)."""
    return _native.grad_mode_get()


@contextlib.contextmanager
def set_grad_enabled(enabled):
    previous = _native.grad_mode_set(bool(enabled))
    try:
        yield
    finally:
        _native.grad_mode_set(previous)


def no_grad():
    """``with tsbridge.autograd.no_grad():`` calls through tsbridge record no
    graph (an optimizer step, inference)."""
    return set_grad_enabled(False)
