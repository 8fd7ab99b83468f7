"""Modules without files: free functions compiled as torch.jit.CompilationUnit
compiles them, modules to and from bytes, pickled, and shipped to a
multiprocessing pool (docs/python.md)."""
import io
import multiprocessing
import pickle

import pytest
import torch

import tsbridge
import pool_worker

SOURCE = """
def fn(x: Tensor):
    return torch.relu(x)

def shifted(x: Tensor, by: int = 1) -> Tensor:
    return fn(x) + by
"""


def test_compile_free_functions_as_compilation_unit_does():
    m = tsbridge.compile(SOURCE)
    cu = torch.jit.CompilationUnit(SOURCE)
    x = torch.tensor([-1.0, 2.0])
    assert torch.equal(m.fn(x), cu.fn(x))
    assert torch.equal(m.shifted(x, by=3), cu.shifted(x, 3))
    assert list(m.method_names) == ["fn", "shifted"]
    with pytest.raises(tsbridge.Error, match=r"fn\(\): argument 'x': expected Tensor, got int 3"):
        m.fn(3)
    with pytest.raises(tsbridge.Error, match="a module of free functions"):
        m.to_bytes()


def linear():
    torch.manual_seed(0)
    return torch.jit.script(torch.nn.Linear(3, 2).eval())


def test_module_to_and_from_bytes():
    scripted = linear()
    buffer = io.BytesIO()
    torch.jit.save(scripted, buffer)
    m = tsbridge.load(buffer.getvalue())  # bytes PyTorch wrote
    x = torch.randn(4, 3)
    assert torch.equal(m(x), scripted(x))
    again = torch.jit.load(io.BytesIO(m.to_bytes()))  # bytes tsbridge wrote
    assert torch.equal(again(x), scripted(x))
    assert torch.equal(tsbridge.load(bytearray(m.to_bytes()))(x), scripted(x))
    with pytest.raises(tsbridge.Error, match="no bytes to read a module from"):
        tsbridge.load(b"")
    with pytest.raises(tsbridge.Error):
        tsbridge.load(m.to_bytes()[:100])


def test_pickle_round_trip_keeps_state():
    scripted = linear()
    buffer = io.BytesIO()
    torch.jit.save(scripted, buffer)
    m = tsbridge.load(buffer.getvalue())
    with tsbridge.autograd.no_grad():
        for p in m.parameters():
            tsbridge.ops.aten.mul_(p, 2)  # an in-place update travels with the module
    copy = pickle.loads(pickle.dumps(m))
    x = torch.randn(2, 3)
    assert torch.equal(copy(x), m(x))
    assert not torch.equal(copy(x), scripted(x))
    assert [n for n, _ in copy.named_parameters()] == ["weight", "bias"]


def test_multiprocessing_pool_runs_a_shipped_module():
    scripted = linear()
    buffer = io.BytesIO()
    torch.jit.save(scripted, buffer)
    m = tsbridge.load(buffer.getvalue())
    batch = torch.randn(8, 3)
    chunks = list(batch.split(2))
    # spawn: fresh interpreters that import tsbridge and unpickle the module
    # (fork would share the parent's LibTorch threads).
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        parts = pool.starmap(pool_worker.run_chunk, [(m, c.tolist()) for c in chunks])
    got = torch.tensor([row for part in parts for row in part])
    assert torch.equal(got, m(batch))
    assert torch.equal(got, scripted(batch))


def test_tsbridge_tensors_pickle_as_torch_save_bytes():
    t = tsbridge.Tensor(torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float64),
                        requires_grad=True)
    back = pickle.loads(pickle.dumps(t))
    assert type(back) is tsbridge.Tensor and back.requires_grad
    assert torch.equal(back.torch().detach(), t.torch().detach())
    assert back.dtype == torch.float64
    ints = pickle.loads(pickle.dumps(tsbridge.Tensor(torch.arange(3))))
    assert not ints.requires_grad and torch.equal(ints.torch(), torch.arange(3))


def test_a_script_object_pickles_with_its_class(modules):
    _, m = modules["more"]
    account = m.account("bob")
    account.deposit(5)
    data = pickle.dumps(account)
    back = pickle.loads(data)
    assert type(back).__name__ == type(account).__name__
    assert (back.owner, back.balance) == (account.owner, account.balance)
    assert back.deposit(1) == account.balance + 1 and account.balance == back.balance - 1
    # The bytes inside are a TorchScript archive PyTorch reads as such.
    archive = _native_archive(account)
    held = torch.jit.load(io.BytesIO(archive)).object
    assert (held.owner, held.balance) == (account.owner, account.balance)
    # A worker that loaded nothing gets the class with the object.
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        assert pool.apply(pool_worker.deposit, (account, 10)) == account.balance + 10


def _native_archive(obj):
    return tsbridge._native.object_write(obj._tsb_value)


def test_multiprocessing_pool_ships_tsbridge_tensors_both_ways():
    m = tsbridge.load(_archive(linear()))
    batch = torch.randn(8, 3)
    chunks = [tsbridge.Tensor(c.clone()) for c in batch.split(2)]
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        parts = pool.starmap(pool_worker.run_tensor_chunk, [(m, c) for c in chunks])
    assert all(type(p) is tsbridge.Tensor for p in parts)
    assert torch.equal(torch.cat([p.torch() for p in parts]), m(batch))


def _archive(scripted):
    buffer = io.BytesIO()
    torch.jit.save(scripted, buffer)
    return buffer.getvalue()


def test_save_for_the_lite_interpreter(tmp_path):
    scripted = linear()
    buffer = io.BytesIO()
    torch.jit.save(scripted, buffer)
    m = tsbridge.load(buffer.getvalue())
    m.save_for_mobile(tmp_path / "m.ptl")
    from torch.jit.mobile import _load_for_lite_interpreter
    lite = _load_for_lite_interpreter(str(tmp_path / "m.ptl"))
    x = torch.randn(3, 3)
    assert torch.equal(lite(x), scripted(x))
