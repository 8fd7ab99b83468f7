"""NamedTuples the library has no type for (ABI 1.8's tsb_tuple_new_named):
a namedtuple under Any keeps its names; variadic operators are listed and
refused with the reason; a namedtuple output traces. Each against PyTorch."""
import collections
from typing import NamedTuple

import pytest
import torch

import tsbridge
import corpus
from conftest import assert_same

Pair = collections.namedtuple("Pair", ["a", "b"])


class Typed(NamedTuple):
    x: torch.Tensor
    n: int


@pytest.mark.parametrize("value", [Pair(torch.ones(2), torch.zeros(1)),
                                   Typed(torch.arange(3.0), 4)])
def test_namedtuple_under_any_keeps_its_names(modules, value):
    scripted, m = modules["kinds"]
    got = m.anys(value)
    assert type(got).__name__ == type(value).__name__
    assert got._fields == value._fields
    assert type(got)._tsb_name == f"__torch__.{__name__}.{type(value).__name__}"
    # PyTorch gives the same values (as a plain tuple: it drops the names).
    theirs = scripted.anys(value)
    assert type(theirs) is tuple
    assert_same(tuple(got), theirs)
    # Nested in a list, and the class is made once per type.
    [again] = m.anys([value])
    assert type(again) is type(got)


def test_namedtuple_of_the_modules_type_converts_back(modules):
    """The scripted Point's own class, passed under Any, has the module's
    name (torch.jit's __torch__.<module>.<class>): it goes back in as the
    record, as PyTorch takes it."""
    scripted, m = modules["kinds"]
    p = corpus.base.Point(1.5, "a")
    back = m.anys(p)
    assert back._fields == ("x", "label")
    assert_same(m.named(back), scripted.named(p))


def test_variadic_operator_is_listed_and_refused_with_the_reason():
    assert "ChunkSizes" in dir(tsbridge.ops.prim)
    op = tsbridge.ops.prim.ChunkSizes
    assert op.__doc__.startswith("prim::ChunkSizes(...) -> ")
    assert "takes a variable number of arguments" in op.__doc__
    with pytest.raises(tsbridge.UnsupportedError,
                       match=r"^prim::ChunkSizes\(\.\.\.\) -> .* takes a variable number of "
                             r"arguments, which tsb_op_call cannot bind"):
        op(torch.ones(4), 2)
    # einsum: a callable overload beside a variadic one.
    m = torch.arange(6.0).reshape(2, 3)
    assert torch.equal(tsbridge.ops.aten.einsum("ij->ji", [m]), torch.einsum("ij->ji", [m]))


@pytest.mark.parametrize("strict", [True, False])
def test_namedtuple_output_traces_as_pytorch_traces_it(strict):
    def ours(x, y):
        return Pair(tsbridge.ops.aten.add(x, y), tsbridge.ops.aten.sub(x, y))

    def theirs(x, y):
        return Pair(x + y, x - y)

    a, b = torch.tensor([5.0, 5.0]), torch.tensor([1.0, 2.0])
    traced = tsbridge.trace(ours, [a, b], strict=strict)
    reference = torch.jit.trace(theirs, (a, b), strict=strict)
    x, y = torch.tensor([1.0, 2.0]), torch.tensor([3.0, 3.0])
    # torch.jit.trace records a namedtuple output as a plain tuple.
    assert_same(traced(x, y), reference(x, y))


In = collections.namedtuple("In", ["t1", "t2"])


@pytest.mark.parametrize("strict", [True, False])
def test_namedtuple_input_keeps_its_fields_inside_the_trace(strict):
    """R torch's "tuple inputs are correctly handled", from Python: the
    traced function reads its input's fields by name. torch.jit.trace hands
    its function a plain tuple (x.t1 fails there), so PyTorch's reads by
    position; the results agree."""
    def ours(x):
        return Pair(tsbridge.ops.aten.mul(x.t1, 1), tsbridge.ops.aten.mul(x.t2, 1))

    def theirs(x):
        return Pair(x[0] * 1, x[1] * 1)

    example = In(torch.tensor([1.0]), torch.tensor([2.0]))
    other = In(torch.tensor([3.0]), torch.tensor([4.0]))
    traced = tsbridge.trace(ours, [example], strict=strict)
    reference = torch.jit.trace(theirs, (example,), strict=strict)
    assert_same(traced(other), reference(other))
