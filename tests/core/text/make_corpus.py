#!/usr/bin/env python3
"""Writes the pickle/JSON corpus: for each value, NAME.pt (torch.save) and an
entry in index.json with the JSON tsbridge must print for it, computed here
from docs/json.md (json_mapping.py), not by tsbridge.

    make_corpus.py OUT_DIR

tests/core/text/corpus_test.cc loads every NAME.pt with tsb_pickle_read, prints
it with tsb_json_write and compares the parsed JSON with the entry's "json".
An entry with "libtorch_json" documents a value LibTorch loads differently
from PyTorch (the test expects that JSON, and that it still differs).
An entry with "expect_error" instead names a value LibTorch's unpickler
cannot read (the test checks that it fails cleanly with that text).
"""
import collections
import json
import math
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from json_mapping import to_json  # noqa: E402

Point = collections.namedtuple("Point", ["x", "y"])


def corpus():
    g = torch.Generator().manual_seed(0)
    yield "none", None
    yield "bool", True
    yield "int", -(2 ** 63)
    yield "int_max", 2 ** 63 - 1
    yield "float", 0.1
    yield "float_specials", [math.nan, math.inf, -math.inf, -0.0, 1e300]
    yield "complex", complex(1.5, -2.0)
    yield "str", "héllo \"wörld\"\n"
    yield "list_int", [1, 2, 3]
    yield "list_empty", []
    yield "list_nested", [[1.5, 2.5], [], [3.0, 4.0]]
    yield "list_one_element", [1]  # APPEND: tsbridge rewrites it (pickle_scan.cc)
    yield "dict_one_item", {"k": [2]}  # SETITEM, the same
    yield "tuple", (1, "a", 2.5)
    yield "tuple_nested", ((1, 2), (None, "x"))
    yield "optional_none", [None, 3]
    yield "dict_str", {"b": 1, "a": 2}
    yield "dict_int_keys", {3: "c", 1: "a"}
    yield "dict_nested", {"t": [torch.arange(6, dtype=torch.float32).reshape(2, 3),
                                torch.ones(1, dtype=torch.int64)],
                          "none": None, "f": 0.25, "s": "x", "tup": (1, None)}
    yield "tensor_float32", torch.randn(2, 3, generator=g)
    yield "tensor_float64", torch.randn(4, generator=g, dtype=torch.float64)
    yield "tensor_float16", torch.tensor([0.5, -1.25, 65504.0], dtype=torch.float16)
    yield "tensor_bfloat16", torch.tensor([1.0, 3.140625], dtype=torch.bfloat16)
    yield "tensor_int64", torch.tensor([[1, -2], [3, 2 ** 40]])
    yield "tensor_int32", torch.tensor([7, -8], dtype=torch.int32)
    yield "tensor_int8", torch.tensor([-128, 127], dtype=torch.int8)
    yield "tensor_uint8", torch.tensor([0, 255], dtype=torch.uint8)
    yield "tensor_bool", torch.tensor([True, False, True])
    yield "tensor_complex64", torch.tensor([1 + 2j, -0.5j], dtype=torch.complex64)
    yield "tensor_scalar", torch.tensor(3.5)
    yield "tensor_empty", torch.zeros(0, 3)
    yield "tensor_noncontiguous", torch.arange(6).reshape(2, 3).t()
    yield "tensor_specials", torch.tensor([math.nan, math.inf, -math.inf])
    yield "tensor_requires_grad", torch.ones(2, requires_grad=True)
    yield "device_cpu", torch.device("cpu")
    yield "device_list", [torch.device("cpu"), torch.device("cuda")]
    yield "device_index", torch.device("cuda:1")
    yield "namedtuple", Point(1, [2.0])
    yield "dtype", torch.float32


# Values LibTorch loads differently from torch.load: name -> the JSON of
# what LibTorch gives. torch.device("cuda:1") pickles as device("cuda", 1)
# and LibTorch's unpickler drops the index argument. The test also checks
# that this still differs from PyTorch's, so a fixed LibTorch is noticed.
LIBTORCH_DIVERGES = {
    "device_index": "cuda",
}

# Values torch.load reads but LibTorch's unpickler (torch::pickle_load, 1.13
# and 2.6 alike) does not: the text its error must contain. A namedtuple pickles as a
# reference to its Python class, a dtype as torch.float32; neither is a
# global the C++ unpickler knows; nor is Python's complex.
EXPECTED_ERRORS = {
    "complex": "__builtin__.complex",
    "namedtuple": "Unknown pickler class",
    "dtype": "torch.float32",
}


def main():
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    index = []
    for name, value in corpus():
        path = os.path.join(out_dir, name + ".pt")
        torch.save(value, path)
        # What PyTorch itself reads back is what the JSON describes.
        loaded = torch.load(path, weights_only=False)
        entry = {"name": name, "file": path}
        if name in EXPECTED_ERRORS:
            entry["expect_error"] = EXPECTED_ERRORS[name]
        else:
            entry["json"] = to_json(loaded)
            if name in LIBTORCH_DIVERGES:
                entry["libtorch_json"] = LIBTORCH_DIVERGES[name]
        index.append(entry)
    with open(os.path.join(out_dir, "index.json"), "w", encoding="utf-8") as f:
        json.dump(index, f, ensure_ascii=False, indent=1, allow_nan=False)
    print(f"wrote {len(index)} values to {out_dir}")


if __name__ == "__main__":
    main()
