"""AOTInductor packages (docs/export.md) from the Python host: the package
tests/core/runtime/make_pt2_fixtures.py compiled, called with new inputs, must
return what PyTorch's own caller (torch._inductor.aoti_load_package) returns."""
import collections
import dataclasses
import inspect
import os

import pytest
import torch

import tsbridge

AOTI = tuple(int(p) for p in torch.__version__.split(".")[:2]) >= (2, 6)
FIXTURES = os.environ.get("TSB_EXPORT_FIXTURES", "")
if AOTI:
    # PyTorch's caller rebuilds the output's namedtuple by its registered name.
    from torch.utils import _pytree as pytree
    Box = collections.namedtuple("Box", ["lo", "hi"])
    pytree._register_namedtuple(Box, serialized_type_name="tsbtest.Box")

    @dataclasses.dataclass
    class Span:
        start: torch.Tensor
        stop: torch.Tensor

    torch.export.register_dataclass(Span, serialized_type_name="tsbtest.Span")


def inputs(seed):
    g = torch.Generator().manual_seed(seed)
    t = lambda *shape: torch.randn(*shape, generator=g)  # noqa: E731
    args = (t(3), (t(3), t(3)), [t(3), t(3)], {"u": t(3), "v": t(3)}, (t(2), t(2)), None)
    # The dataclass Span goes in as a plain tuple: PyTorch flattens both alike.
    return args, {"scale": t(3), "span": (t(2), t(2)), "steps": torch.tensor([1, 2, 3])}


def assert_same(got, want, where="result"):
    if dataclasses.is_dataclass(want):  # a custom node no plugin names: a tuple
        want = tuple(getattr(want, f.name) for f in dataclasses.fields(want))
    if isinstance(want, torch.Tensor):
        assert isinstance(got, torch.Tensor), where
        assert got.dtype == want.dtype and torch.equal(got, want), where
    elif isinstance(want, dict):
        assert isinstance(got, dict) and list(got) == list(want), where
        for k in want:
            assert_same(got[k], want[k], f"{where}[{k!r}]")
    elif isinstance(want, (tuple, list)):
        # A namedtuple no plugin names crosses as a tuple (docs/export.md).
        assert isinstance(got, tuple if isinstance(want, tuple) else list), where
        assert len(got) == len(want), where
        for i, (g, w) in enumerate(zip(got, want)):
            assert_same(g, w, f"{where}[{i}]")
    else:
        assert got == want, where


@pytest.mark.skipif(not AOTI, reason="AOTInductor packages need LibTorch 2.6")
def test_a_package_returns_what_pytorchs_own_caller_returns():
    path = os.path.join(FIXTURES, "nested.pt2")
    m = tsbridge.load(path)
    theirs = torch._inductor.aoti_load_package(path)
    for seed in (1, 2):
        args, kwargs = inputs(seed)
        assert_same(m(*args, **kwargs), theirs(*args, **kwargs))
    # The spec is the signature: positional names are all it lacks.
    sig = inspect.signature(m.forward)
    assert list(sig.parameters) == ["arg0", "arg1", "arg2", "arg3", "arg4", "arg5", "scale",
                                    "span", "steps"]
    assert sig.parameters["scale"].kind is inspect.Parameter.KEYWORD_ONLY
    assert sig.parameters["arg3"].annotation == "Dict[str, Tensor]"


@pytest.mark.skipif(not AOTI, reason="AOTInductor packages need LibTorch 2.6")
def test_a_package_refuses_what_it_was_not_exported_with():
    m = tsbridge.load(os.path.join(FIXTURES, "nested.pt2"))
    args, kwargs = inputs(3)
    longer = list(args)
    longer[2] = args[2] + [args[2][0]]
    with pytest.raises(tsbridge.Error, match=r"argument 'arg2': expected a list of 2 items"):
        m(*longer, **kwargs)
    missing = list(args)
    missing[3] = {"u": args[3]["u"]}
    with pytest.raises(tsbridge.Error, match=r"argument 'arg3' → key \"v\": missing"):
        m(*missing, **kwargs)
    with pytest.raises(tsbridge.Error, match=r"ExportedProgram"):
        tsbridge.load(os.path.join(FIXTURES, "program.pt2"))


@pytest.mark.skipif(AOTI, reason="LibTorch 2.6 loads packages")
def test_a_package_needs_libtorch_2_6(tmp_path):
    path = tmp_path / "m.pt2"
    path.write_bytes(b"never read")
    with pytest.raises(tsbridge.Error, match=r"needs LibTorch 2.6 or newer"):
        tsbridge.load(path)
