"""Run by multiprocessing workers in test_bytes.py: a module arrives pickled
(as the bytes of its TorchScript archive) with each chunk."""


def run_chunk(module, chunk):
    # Detached: a result that requires grad cannot cross to the parent.
    return module(chunk).detach()
