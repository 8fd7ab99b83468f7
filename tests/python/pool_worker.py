"""Run by multiprocessing workers in test_bytes.py: a module arrives pickled
(as the bytes of its TorchScript archive) with each chunk."""


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
