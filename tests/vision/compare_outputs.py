"""Compares a model's output as tsbridge returned it with PyTorch's own.

Usage: /usr/bin/python3 compare_outputs.py EXPECTED.pt ACTUAL.pt

Both files are torch.save'd values (tuples, lists, dicts, tensors). Tensors
must agree to within ATOL + RTOL * |expected| (torch.allclose). Detections
(dicts with boxes, labels, scores) are matched one to one when the order
differs: with random weights many scores tie, and ties may come out in
either order. This process imports torch only, never torchvision.
"""
import sys

import torch

ATOL, RTOL = 1e-4, 1e-4  # float32 through the same LibTorch kernels


def is_detections(value):
    return isinstance(value, dict) and {"boxes", "labels", "scores"} <= set(value)


def match_detections(expected, actual, where):
    n = len(expected["scores"])
    if len(actual["scores"]) != n:
        raise AssertionError(f"{where}: {len(actual['scores'])} detections, PyTorch has {n}")
    if all(torch.allclose(actual[k].double(), expected[k].double(), atol=ATOL, rtol=RTOL)
           for k in ("boxes", "labels", "scores")):
        return
    free = list(range(n))
    for i in range(n):
        for j in free:
            if (int(actual["labels"][j]) == int(expected["labels"][i])
                    and torch.allclose(actual["boxes"][j], expected["boxes"][i], atol=ATOL, rtol=RTOL)
                    and abs(float(actual["scores"][j] - expected["scores"][i])) <= ATOL):
                free.remove(j)
                break
        else:
            raise AssertionError(f"{where}: detection {i} (label {int(expected['labels'][i])}, "
                                 f"box {expected['boxes'][i].tolist()}) has no match")


def compare(expected, actual, where="result"):
    if isinstance(expected, torch.Tensor):
        assert isinstance(actual, torch.Tensor), f"{where}: got {type(actual).__name__}"
        assert actual.dtype == expected.dtype, f"{where}: dtype {actual.dtype} != {expected.dtype}"
        assert actual.shape == expected.shape, f"{where}: shape {actual.shape} != {expected.shape}"
        if not torch.allclose(actual.double(), expected.double(), atol=ATOL, rtol=RTOL):
            diff = (actual.double() - expected.double()).abs().max()
            raise AssertionError(f"{where}: max difference {float(diff)}")
    elif is_detections(expected):
        match_detections(expected, actual, where)
    elif isinstance(expected, dict):
        assert isinstance(actual, dict) and list(actual) == list(expected), \
            f"{where}: keys {list(actual) if isinstance(actual, dict) else actual!r} != {list(expected)}"
        for key in expected:
            compare(expected[key], actual[key], f"{where}[{key!r}]")
    elif isinstance(expected, (list, tuple)):
        assert isinstance(actual, (list, tuple)) and len(actual) == len(expected), \
            f"{where}: {actual!r} != {expected!r}"
        for i, (e, a) in enumerate(zip(expected, actual)):
            compare(e, a, f"{where}[{i}]")
    else:
        assert actual == expected, f"{where}: {actual!r} != {expected!r}"


def main(expected_path, actual_path):
    compare(torch.load(expected_path, weights_only=False), torch.load(actual_path, weights_only=False))
    assert "torchvision" not in sys.modules
    print(f"{actual_path}: matches PyTorch (atol {ATOL}, rtol {RTOL})")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
