"""tsbridge's JSON mapping (docs/json.md), written again in Python from the
document, independently of the C++ code: the corpus test compares the two.

Only the output direction is needed: a Python value as torch.load returns it
-> the JSON tsb_json_write must print for the value LibTorch loads.
"""
import math

import torch

DTYPE_NAMES = {
    torch.uint8: "uint8", torch.int8: "int8", torch.int16: "int16",
    torch.int32: "int32", torch.int64: "int64", torch.float16: "float16",
    torch.float32: "float32", torch.float64: "float64",
    torch.complex32: "complex32", torch.complex64: "complex64",
    torch.complex128: "complex128", torch.bool: "bool", torch.bfloat16: "bfloat16",
}


def float_json(x):
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    return float(x)


def complex_json(c):
    return {"real": float_json(c.real), "imag": float_json(c.imag)}


def tensor_json(t):
    out = {"dtype": DTYPE_NAMES[t.dtype], "shape": list(t.shape)}
    flat = t.detach().cpu().reshape(-1)
    if t.dtype == torch.bool:
        data = [bool(x) for x in flat.tolist()]
    elif t.dtype.is_complex:
        data = [complex_json(x) for x in flat.to(torch.complex128).tolist()]
    elif t.dtype.is_floating_point:
        data = [float_json(x) for x in flat.to(torch.float64).tolist()]
    else:
        data = [int(x) for x in flat.tolist()]
    out["data"] = data
    if t.device.type != "cpu":
        out["device"] = str(t.device)
    if t.requires_grad:
        out["requires_grad"] = True
    return out


def to_json(v, other=None):
    """The JSON of a value as its own type (a loaded pickle has no static
    type, so containers print by their elements' own types). other(v), if
    given, is the JSON of a leaf this mapping leaves out (an Enum, an object)."""
    if v is None or isinstance(v, bool):
        return v
    if isinstance(v, int):
        return v
    if isinstance(v, float):
        return float_json(v)
    if isinstance(v, complex):
        return complex_json(v)
    if isinstance(v, str):
        return v
    if isinstance(v, torch.Tensor):
        return tensor_json(v)
    if isinstance(v, torch.device):
        return str(v)
    if isinstance(v, tuple) and hasattr(v, "_fields"):
        return {f: to_json(x, other) for f, x in zip(v._fields, v)}
    if isinstance(v, (list, tuple)):
        return [to_json(x, other) for x in v]
    if isinstance(v, dict):
        if all(isinstance(k, str) for k in v):
            return {k: to_json(x, other) for k, x in v.items()}
        return [[to_json(k, other), to_json(x, other)] for k, x in v.items()]
    if other is not None:
        return other(v)
    raise TypeError(f"no JSON mapping for {type(v).__name__}")
