"""Tensors cross without a handle each (docs/python.md): with the companion, a
call's tensor arguments go in as borrowed entries naming the Python tensor's
own at::Tensor, and a result's tensors come out of a walk that lends them.
These tests hold on both paths (ctest runs this directory as python_host and
as python_host_dlpack, where TSB_PYTHON_NO_TORCH_FASTPATH=1 makes every
tensor a handle again); the autograd ones need the companion."""
import gc
from typing import Dict, List

import pytest
import torch

import tsbridge

fast_only = pytest.mark.skipif(not tsbridge.TORCH_FASTPATH, reason="DLPack path")


class Lender(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.table: Dict[str, torch.Tensor] = {"a": torch.ones(3), "b": torch.zeros(2)}

    def forward(self, xs: List[torch.Tensor]) -> List[torch.Tensor]:
        return xs

    @torch.jit.export
    def same_dict(self, d: Dict[str, torch.Tensor]) -> Dict[str, torch.Tensor]:
        return d

    @torch.jit.export
    def nested(self, d: Dict[str, List[torch.Tensor]]) -> Dict[str, List[torch.Tensor]]:
        return d

    @torch.jit.export
    def made(self, n: int) -> Dict[str, torch.Tensor]:
        return {str(i): torch.full([2], float(i)) for i in range(n)}

    @torch.jit.export
    def get_table(self) -> Dict[str, torch.Tensor]:
        return self.table

    @torch.jit.export
    def set_table(self, d: Dict[str, torch.Tensor]) -> None:
        self.table = d

    @torch.jit.export
    def bump(self, xs: List[torch.Tensor]) -> None:
        xs[0].add_(1)

    @torch.jit.export
    def doubled(self, xs: List[torch.Tensor], d: Dict[str, torch.Tensor]) -> List[torch.Tensor]:
        return [xs[0] * 2, d["x"] * 3]


@pytest.fixture()
def lender(tmp_path):
    path = str(tmp_path / "lender.pt")
    torch.jit.save(torch.jit.script(Lender()), path)
    return tsbridge.load(path)


def test_tensors_made_by_the_callee_outlive_the_dict_they_came_in(lender):
    got = lender.made(50)
    gc.collect()  # the boundary dict is long gone; the tensors must not be
    for i in range(50):
        assert torch.equal(got[str(i)], torch.full([2], float(i)))


def test_a_modules_tensors_outlive_the_attribute_that_held_them(lender):
    got = lender.get_table()
    lender.set_table({"c": torch.full([4], 7.0)})  # the module lets go of the old dict
    gc.collect()
    assert torch.equal(got["a"], torch.ones(3)) and torch.equal(got["b"], torch.zeros(2))
    stored = lender.get_table()
    assert torch.equal(stored["c"], torch.full([4], 7.0))


def test_a_stored_argument_outlives_the_python_tensor_that_went_in(lender):
    lender.set_table({"kept": torch.arange(5.0)})  # its tensor is only the module's now
    gc.collect()
    assert torch.equal(lender.get_table()["kept"], torch.arange(5.0))


def test_a_tensor_inside_a_list_argument_is_the_one_the_callee_sees(lender):
    x, y = torch.arange(3.0), torch.ones(2)
    got = lender([x, y])
    assert torch.equal(got[0], x) and torch.equal(got[1], y)
    lender.bump([x])  # in place, on the very memory
    assert torch.equal(x, torch.arange(3.0) + 1)
    if tsbridge.TORCH_FASTPATH:  # the tensor itself: its own Python object back
        assert got[0] is x and got[1] is y


@fast_only
def test_a_dict_returned_unchanged_gives_back_the_same_objects(lender):
    d = {f"k{i}": torch.full([2], float(i)) for i in range(100)}
    got = lender.same_dict(d)
    assert list(got) == list(d)
    assert all(got[k] is d[k] for k in d)


@fast_only
def test_autograd_crosses_both_ways_through_lent_tensors(lender):
    x = torch.randn(3, requires_grad=True)
    w = torch.randn(3, requires_grad=True)
    a, b = lender.doubled([x], {"x": w})
    assert a.requires_grad and a.grad_fn is not None and b.grad_fn is not None
    (a.sum() + b.sum()).backward()
    assert torch.equal(x.grad, torch.full([3], 2.0))
    assert torch.equal(w.grad, torch.full([3], 3.0))
    back = lender([x])
    assert back[0] is x and back[0].requires_grad


def test_lent_tensors_leave_no_handle_behind(lender):
    xs = [torch.ones(2) for _ in range(20)]
    d = {str(i): t for i, t in enumerate(xs)}
    lender(xs)
    lender.same_dict(d)
    gc.collect()
    before = tsbridge._native.live_handles()
    for _ in range(5):
        lender(xs)
        lender.same_dict(d)
        lender.made(10)
    gc.collect()
    assert tsbridge._native.live_handles() == before


class Sneaky(list):
    """A list whose iteration runs Python code while a call's arguments are
    being converted: what that code makes must not be lent."""

    made = []

    def __iter__(self):
        Sneaky.made.append(tsbridge.Tensor(torch.full([3], 5.0)))  # its torch.Tensor dies here
        return super().__iter__()


def test_what_python_code_makes_during_a_call_is_not_lent(lender):
    Sneaky.made.clear()
    gc.collect()
    before = tsbridge._native.live_handles()
    got = lender(Sneaky([torch.ones(2)]))
    assert torch.equal(got[0], torch.ones(2)) and len(Sneaky.made) == 1
    gc.collect()
    assert tsbridge._native.live_handles() == before + 1  # the tsbridge.Tensor's own
    torch.full([3], 9.0)  # reuse the freed memory, if it was freed
    assert torch.equal(Sneaky.made[0].torch(), torch.full([3], 5.0))


class Fresh(list):
    """A list whose iteration makes the tensors it yields: only the list
    Python makes of it while the argument converts holds them."""

    def __init__(self, value, n):
        super().__init__([None] * n)
        self.value = value

    def __iter__(self):
        return iter([torch.full([2], self.value) for _ in range(len(self))])


def test_what_a_sequence_makes_as_it_is_read_lives_until_the_value_is_built(lender):
    # The kit builds the whole dict in one pass at its end (docs/hosts.md):
    # the tensors of the inner lists must live until then, not only until
    # their own list is read.
    d = {str(i): Fresh(float(i), 3) for i in range(8)}
    for _ in range(3):
        got = lender.nested(d)
        assert {k: [t.tolist() for t in v] for k, v in got.items()} == {
            str(i): [[float(i)] * 2] * 3 for i in range(8)}
