"""Run by the workers of test_bytes.py (multiprocessing) and test_engines.py
(Dask): a module arrives pickled (as the bytes of its TorchScript archive)
with each chunk; importable by the workers, which get the parent's sys.path."""
import pickle


import torch

import tsbridge


def run_chunk(module, rows):
    # Lists in and out: tensors would travel through torch.multiprocessing's
    # shared-memory reduction, whose storages LeakSanitizer reports in the
    # sanitizer stage (they outlive the test, held for the pool's workers).
    return module(torch.tensor(rows)).tolist()


def run_tensor_chunk(module, chunk):
    # tsbridge.Tensor travels pickled as torch.save's bytes, both ways.
    return tsbridge.Tensor(module(chunk).detach())


def deposit(account, amount):
    # A TorchScript class instance arrives pickled with its class's code.
    return account.deposit(amount)


def run(module, *chunks):
    # Dask ships torch.Tensor chunks and results by its own serializer.
    return module(*chunks)


def run_pickled(data, *chunks):
    # The module read inside the task: a failure to read it is the task's
    # error (Dask 2024 retries an argument that fails to unpickle instead).
    return pickle.loads(data)(*chunks)


_packages = {}


def run_package(path, method, chunk):
    # An AOTInductor package does not pickle: each worker loads it from its
    # path, once.
    if path not in _packages:
        _packages[path] = tsbridge.load(path)
    return getattr(_packages[path], method)(chunk)


def grad_here(t):
    # A tensor that arrives requiring grad is a leaf of this process: a
    # backward here fills its own .grad.
    tsbridge.ops.aten.sum(tsbridge.ops.aten.mul(t, 3.0)).backward()
    return t.grad.torch()


def load_library(name):
    # Run on each worker (client.run) before a module that calls the
    # library's operators arrives there.
    tsbridge.load_library(name)
