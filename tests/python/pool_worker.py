"""Run by multiprocessing workers in test_bytes.py: a module arrives pickled
(as the bytes of its TorchScript archive) with each chunk."""


import torch


def run_chunk(module, rows):
    # Lists in and out: tensors would travel through torch.multiprocessing's
    # shared-memory reduction, whose storages LeakSanitizer reports in the
    # sanitizer stage (they outlive the test, held for the pool's workers).
    return module(torch.tensor(rows)).tolist()
