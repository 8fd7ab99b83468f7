#!/usr/bin/env python3
"""PyTorch's side of the pickle tests (tests/core/binary/pickle_test.cc).

    pickle_peer.py check FILE CASE   torch.load a file tsbridge wrote, compare
                                     it with CASE's expected value; exit 1 and
                                     say why on a mismatch
    pickle_peer.py save FILE CASE    torch.save CASE's value for tsbridge

The C++ test builds the same values; both sides must agree exactly (dtype,
shape, values, container kinds, dict order).
"""
import math
import sys

import torch


def expected_from_cpp(case):
    """What torch.load must return for the file tsbridge saved for CASE."""
    if case == "nested":
        return {"a": [torch.arange(6, dtype=torch.float32).reshape(2, 3),
                      torch.ones(2, dtype=torch.int64)],
                "b": []}
    if case == "mixed":
        return (None, 0.5, "h\u00e9llo", (1, [2, 3]), {"k": 1.5}, True, complex(1, -2))
    if case == "int_keys":
        return {2: "b", 1: "a"}
    if case == "specials":
        return [math.nan, math.inf, -math.inf, -0.0]
    if case == "namedtuple":
        # LibTorch pickles a NamedTuple as a plain tuple: the names stay behind.
        return (torch.zeros(1), torch.ones(1))
    if case == "device":
        return torch.device("cpu")
    raise SystemExit(f"unknown case {case}")


def value_for_cpp(case):
    """What PyTorch saves for tsbridge to load in CASE."""
    if case == "nested":
        return {"a": [torch.arange(4, dtype=torch.int32), torch.full((2, 2), 0.5)],
                "b": (1, None, "s"), "c": 2.5}
    if case == "int_keys":
        return {1: "x", -5: "y"}
    if case == "views":
        base = torch.arange(6.0).reshape(2, 3)
        return (base, base[1], base.t())
    raise SystemExit(f"unknown case {case}")


def same(a, b, path="value"):
    """Exact equality with the reason for the first difference."""
    if type(a) is not type(b):
        return f"{path}: {type(a).__name__} != {type(b).__name__}"
    if isinstance(a, torch.Tensor):
        if a.dtype != b.dtype or a.shape != b.shape:
            return f"{path}: {a.dtype}{list(a.shape)} != {b.dtype}{list(b.shape)}"
        return None if torch.equal(a, b) else f"{path}: {a} != {b}"
    if isinstance(a, float):
        if math.isnan(a) and math.isnan(b):
            return None
        if a != b or math.copysign(1, a) != math.copysign(1, b):
            return f"{path}: {a!r} != {b!r}"
        return None
    if isinstance(a, (list, tuple)):
        if len(a) != len(b):
            return f"{path}: length {len(a)} != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            why = same(x, y, f"{path}[{i}]")
            if why:
                return why
        return None
    if isinstance(a, dict):
        if list(a) != list(b):
            return f"{path}: keys {list(a)} != {list(b)}"
        for k in a:
            why = same(a[k], b[k], f"{path}[{k!r}]")
            if why:
                return why
        return None
    return None if a == b else f"{path}: {a!r} != {b!r}"


def main():
    mode, path, case = sys.argv[1:4]
    if mode == "save":
        torch.save(value_for_cpp(case), path)
        return
    loaded = torch.load(path, weights_only=False)
    why = same(loaded, expected_from_cpp(case))
    if why:
        print(f"torch.load({path}) differs: {why}\nloaded: {loaded!r}")
        raise SystemExit(1)
    print(f"ok: {loaded!r}")


if __name__ == "__main__":
    main()
