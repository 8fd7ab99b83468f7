"""tsbridge values on Dask's distributed scheduler (docs/python.md, "Dask
and other engines"): a LocalCluster of two worker processes on loopback runs
a module, an AOTInductor package and a script object over chunks of a batch,
equal to the single-process results and to PyTorch's; and what does not
travel. Skipped only where python3-distributed is not installed."""
import logging
import os
import pickle

import pytest
import torch

import tsbridge
import pool_worker

# The sanitizer stage checks for leaks before the interpreter finalizes
# (cmake/sanitize.cmake); Dask's own threads still hold Python objects then,
# which are not tsbridge's. The engines run in the main stage of every release.
if os.environ.get("TSB_LSAN_BEFORE_FINALIZE"):
    pytest.skip("Dask under the sanitizer stage's early leak check", allow_module_level=True)

try:
    import dask.bag
    import distributed
except ModuleNotFoundError as e:  # a broken install fails, an absent one skips
    if e.name not in ("dask", "distributed"):
        raise
    pytest.skip(f"python3-distributed is not installed ({e})", allow_module_level=True)

from test_bytes import _archive, linear
from test_export import AOTI, FIXTURES

TIMEOUT = 60  # seconds, for the cluster to start, for each result, to close
# Dask 2022.12's client on tornado 6.2 (Debian 12) warns about its own use.
pytestmark = pytest.mark.filterwarnings("ignore:make_current is deprecated:DeprecationWarning")


@pytest.fixture(scope="module")
def client():
    # Spawned worker processes (Dask's default), each a fresh interpreter
    # that imports tsbridge when the first module arrives; no dashboard.
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       host="127.0.0.1", dashboard_address=None,
                                       silence_logs=logging.ERROR, death_timeout=TIMEOUT)
    try:
        with distributed.Client(cluster, timeout=TIMEOUT) as c:
            c.wait_for_workers(2, timeout=TIMEOUT)
            yield c
    finally:
        cluster.close(timeout=TIMEOUT)

def gather(client, futures):
    distributed.wait(futures, timeout=TIMEOUT)
    return client.gather(futures)


def batch_of(rows, cols):
    return torch.randn(rows, cols, generator=torch.Generator().manual_seed(7))


def test_two_worker_processes_on_loopback(client):
    workers = client.scheduler_info()["workers"]
    assert len(workers) == 2 and all(a.startswith("tcp://127.0.0.1:") for a in workers)
    pids = client.run(os.getpid)
    assert len(set(pids.values())) == 2 and os.getpid() not in pids.values()


def test_client_map_runs_a_module_over_chunks(client):
    scripted = linear()
    m = tsbridge.load(_archive(scripted))
    batch = batch_of(8, 3)
    chunks = list(batch.split(2))
    # The module goes to each worker once (scatter), its chunks with the tasks.
    shipped = client.scatter(m, broadcast=True)
    futures = client.map(pool_worker.run, [shipped] * len(chunks), chunks)
    parts = gather(client, futures)
    assert all(type(p) is torch.Tensor for p in parts)
    assert torch.equal(torch.cat(parts), m(batch))
    assert torch.equal(torch.cat(parts), scripted(batch))
    assert set(client.who_has(futures)[futures[0].key])  # computed on a worker


def test_dask_bag_maps_a_module_over_partitions(client):
    scripted = linear()
    m = tsbridge.load(_archive(scripted))
    batch = batch_of(12, 3)
    bag = dask.bag.from_sequence(list(batch.split(3)), npartitions=2)
    parts = client.compute(bag.map(lambda chunk: pool_worker.run(m, chunk))).result(TIMEOUT)
    assert torch.equal(torch.cat(parts), m(batch))
    assert torch.equal(torch.cat(parts), scripted(batch))


@pytest.mark.skipif(not AOTI, reason="AOTInductor packages need LibTorch 2.6")
def test_a_package_is_loaded_by_each_worker_from_its_path(client):
    path = os.path.join(FIXTURES, "two_models.pt2")
    m = tsbridge.load(path)
    # It does not pickle: a package is not a TorchScript archive.
    with pytest.raises(tsbridge.Error, match="an AOTInductor package is saved by the Python"):
        pickle.dumps(m)
    batch = batch_of(8, 1).flatten()
    chunks = list(batch.split(2))  # "twice" was exported for shape [2]
    parts = gather(client, client.map(pool_worker.run_package, [path] * len(chunks),
                                      ["twice"] * len(chunks), chunks))
    assert torch.equal(torch.cat(parts), torch.cat([m.twice(c) for c in chunks]))
    assert torch.equal(torch.cat(parts), batch * 2)  # Twice.forward in PyTorch


def test_a_script_object_travels_with_its_class_as_a_copy(client, modules):
    scripted, m = modules["more"]
    account = m.account("bob")
    account.deposit(5)
    amounts = [1, 2, 3, 4]
    got = gather(client, client.map(pool_worker.deposit, [account] * len(amounts), amounts,
                                    pure=False))
    single = [pickle.loads(pickle.dumps(account)).deposit(a) for a in amounts]
    theirs = scripted.account("bob")
    theirs.deposit(5)
    assert got == single == [theirs.balance + a for a in amounts]
    assert account.balance == 15  # the workers deposited into their copies


def test_what_a_worker_does_not_see(client):
    m = tsbridge.load(_archive(linear()))
    batch = batch_of(4, 3)
    chunks = list(batch.split(2))
    before = m(batch)
    shipped = client.scatter(m, broadcast=True)
    with tsbridge.autograd.no_grad():
        for p in m.parameters():
            tsbridge.ops.aten.mul_(p, 2)
    after = m(batch)
    assert not torch.equal(before, after)
    # A scattered module is the state it had then.
    old = gather(client, client.map(pool_worker.run, [shipped] * 2, chunks))
    assert torch.equal(torch.cat(old), before)
    # Passed again, it is pickled again, with the new state (pure=False: a
    # new task, whatever Dask's hash of the arguments).
    new = gather(client, client.map(pool_worker.run, [m] * 2, chunks, pure=False))
    assert torch.equal(torch.cat(new), after)
    # A tensor that requires grad arrives as a leaf: the graph stays here,
    # and a backward in the worker fills the worker's copy's .grad only.
    x = tsbridge.Tensor(torch.ones(3), requires_grad=True)
    y = tsbridge.ops.aten.mul(x, 2.0)  # not a leaf
    grad = client.submit(pool_worker.grad_here, y, pure=False).result(TIMEOUT)
    assert torch.equal(grad, torch.full((3,), 3.0))
    assert x.grad is None and y.requires_grad


def test_an_operator_library_is_loaded_in_the_worker_first(client):
    try:
        tsbridge.load_library("torchvision")
    except tsbridge.NotFoundError as e:
        pytest.skip(f"python3-torchvision is not installed: {e}")
    m = tsbridge.compile("def forward(self, boxes: Tensor, scores: Tensor) -> Tensor:\n"
                         "    return ops.torchvision.nms(boxes, scores, 0.5)\n")
    boxes = torch.tensor([[0.0, 0, 10, 10], [1, 1, 11, 11], [20, 20, 30, 30]])
    scores = torch.tensor([0.9, 0.8, 0.7])
    # The workers have not loaded it: the module cannot be read there. It
    # travels as bytes read inside the task, so that the failure comes back
    # as the task's error on every Dask release.
    future = client.submit(pool_worker.run_pickled, pickle.dumps(m), boxes, scores, pure=False)
    with pytest.raises(tsbridge.Error, match="calls the operator torchvision::nms, which is "
                       "not registered: load the operator library 'torchvision' first"):
        future.result(TIMEOUT)
    client.run(pool_worker.load_library, "torchvision")
    got = client.submit(pool_worker.run, m, boxes, scores, pure=False).result(TIMEOUT)
    assert torch.equal(got, m(boxes, scores))
    assert torch.equal(got, torch.tensor([0, 2]))  # torchvision.ops.nms's answer
