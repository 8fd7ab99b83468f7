"""TorchScript types and values for the differential tests (hypothesis).

A drawn type is a small tree of tuples:

    ("int",) ("float",) ("bool",) ("str",) ("complex",) ("Tensor",)
    ("Device",) ("dtype",)
    ("List", T) ("Dict", K, V) ("Tuple", (T, ...)) ("NamedTuple", (T, ...))
    ("Optional", T) ("Union", (T, ...))

`types()` draws one (nested up to depth 4), `values(t)` draws values of it,
`module_source(t)` writes a Python file whose module PyTorch scripts: an
identity method and a rebuild method, which builds a fresh value of the
same type inside TorchScript (new lists, dicts, tuples, cloned tensors).
`canon(v)` is the canonical form two results are compared by.
"""
import hashlib
import math

import torch
from hypothesis import strategies as st

LEAVES = ("int", "float", "bool", "str", "complex", "Tensor", "Device", "dtype")
# Dict keys TorchScript allows (1.13): str, int, float, bool, complex, Tensor.
KEYS = ("str", "int", "float", "bool", "complex", "Tensor")
DTYPES = (torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64,
          torch.int32, torch.int16, torch.int8, torch.uint8, torch.bool,
          torch.complex64, torch.complex128)
DEVICES = ("cpu", "cuda:1", "meta", "cuda")


# ------------------------------------------------------------------ types

def _leaf(name):
    return (name,)


def _union_members(sub):
    # Members are distinct and none is Optional or a Union (TorchScript
    # flattens those); order is kept.
    plain = sub.filter(lambda t: t[0] not in ("Optional", "Union"))
    return st.lists(plain, min_size=2, max_size=3, unique_by=annotation).map(tuple)


def types(depth=4):
    """Every kind, nested to `depth` container levels."""
    leaves = st.sampled_from(LEAVES).map(_leaf)
    if depth == 0:
        return leaves
    sub = types(depth - 1)
    keys = st.sampled_from(KEYS).map(_leaf)
    return st.one_of(
        leaves,
        sub.map(lambda t: ("List", t)),
        st.tuples(keys, sub).map(lambda kv: ("Dict", kv[0], kv[1])),
        st.lists(sub, min_size=1, max_size=3).map(lambda ts: ("Tuple", tuple(ts))),
        st.lists(sub, min_size=1, max_size=3).map(lambda ts: ("NamedTuple", tuple(ts))),
        sub.filter(lambda t: t[0] not in ("Optional", "Union")).map(lambda t: ("Optional", t)),
        _union_members(sub).map(lambda ts: ("Union", ts)),
    )


def has(t, kind):
    """Whether the type `t` contains `kind` anywhere."""
    if t[0] == kind:
        return True
    return any(has(c, kind) for c in children(t))


def children(t):
    if t[0] in ("List", "Optional"):
        return (t[1],)
    if t[0] == "Dict":
        return (t[1], t[2])
    if t[0] in ("Tuple", "NamedTuple", "Union"):
        return t[1]
    return ()


def nt_name(t):
    return "NT_" + hashlib.sha1(annotation(("Tuple", t[1])).encode()).hexdigest()[:10]


def annotation(t):
    """The Python annotation of `t` in a generated file."""
    k = t[0]
    simple = {"int": "int", "float": "float", "bool": "bool", "str": "str",
              "complex": "complex", "Tensor": "torch.Tensor", "Device": "torch.device",
              "dtype": "torch.dtype"}
    if k in simple:
        return simple[k]
    if k == "List":
        return f"List[{annotation(t[1])}]"
    if k == "Dict":
        return f"Dict[{annotation(t[1])}, {annotation(t[2])}]"
    if k == "Tuple":
        return f"Tuple[{', '.join(annotation(c) for c in t[1])}]"
    if k == "NamedTuple":
        return nt_name(t)
    if k == "Optional":
        return f"Optional[{annotation(t[1])}]"
    if k == "Union":
        return f"Union[{', '.join(annotation(c) for c in t[1])}]"
    raise ValueError(t)


def type_id(t):
    return hashlib.sha1(annotation(t).encode() + repr(t).encode()).hexdigest()[:12]


# ----------------------------------------------------------------- values

@st.composite
def tensors(draw, dtypes=DTYPES):
    dtype = draw(st.sampled_from(dtypes))
    shape = tuple(draw(st.lists(st.integers(0, 3), max_size=3)))  # () is 0-d
    layout = draw(st.sampled_from(("contiguous", "transposed", "strided")))
    gen = torch.Generator().manual_seed(draw(st.integers(0, 2**31)))
    big = list(shape)
    if layout == "strided" and big:
        big[-1] *= 2
    base = torch.randn(big, generator=gen, dtype=torch.float64) * 50
    if dtype.is_complex:
        base = torch.complex(base, torch.randn(big, generator=gen, dtype=torch.float64))
    t = (base > 0) if dtype == torch.bool else base.to(dtype)
    if layout == "strided" and big:
        t = t[..., ::2]
    elif layout == "transposed" and len(shape) >= 2:
        t = t.transpose(0, 1).contiguous().transpose(0, 1)
    return t


def values(t):
    """Values of type `t` (a Union's value is one of its members')."""
    k = t[0]
    if k == "int":
        return st.integers(-2**63, 2**63 - 1)
    if k == "float":
        return st.floats(allow_nan=True, allow_infinity=True)
    if k == "bool":
        return st.booleans()
    if k == "str":
        return st.text(max_size=8)
    if k == "complex":
        return st.complex_numbers(allow_nan=True, allow_infinity=True)
    if k == "Tensor":
        return tensors()
    if k == "Device":
        return st.sampled_from(DEVICES).map(torch.device)
    if k == "dtype":
        return st.sampled_from(DTYPES)
    if k == "List":
        return st.lists(values(t[1]), max_size=3)
    if k == "Dict":
        if t[1][0] == "Tensor":  # distinct objects; equal values are fine
            return st.lists(st.tuples(tensors(), values(t[2])), max_size=3).map(dict)
        # float keys: one NaN never finds itself again, in either library
        keys = values(t[1]).filter(lambda x: x == x)
        return st.dictionaries(keys, values(t[2]), max_size=3)
    if k == "Tuple":
        return st.tuples(*(values(c) for c in t[1]))
    if k == "NamedTuple":
        return st.tuples(*(values(c) for c in t[1]))  # made a NamedTuple by the caller
    if k == "Optional":
        return st.one_of(st.none(), values(t[1]))
    if k == "Union":
        return st.one_of(*(values(c) for c in t[1]))
    raise ValueError(t)


def with_classes(t, v, classes):
    """`v` with each NamedTuple position made an instance of its class."""
    k = t[0]
    if v is None or k in LEAVES or k == "Union":
        return v
    if k == "List":
        return [with_classes(t[1], x, classes) for x in v]
    if k == "Dict":
        return {kk: with_classes(t[2], vv, classes) for kk, vv in v.items()}
    if k == "Tuple":
        return tuple(with_classes(c, x, classes) for c, x in zip(t[1], v))
    if k == "NamedTuple":
        return classes[nt_name(t)](*(with_classes(c, x, classes) for c, x in zip(t[1], v)))
    if k == "Optional":
        return with_classes(t[1], v, classes)
    raise ValueError(t)


# -------------------------------------------------------------- mutations

def wrong(t):
    """A value PyTorch refuses where `t` is expected."""
    return 1.5 if t[0] in ("str", "Device") else "x"


def mutation_points(t, v, path=()):
    """(steps, expected type) of every position that can take a wrong value,
    outside Unions; steps are ("idx", i), ("field", i, name) or ("key", k, i)
    (the value under key k, the i-th item)."""
    yield path, t
    k = t[0]
    if v is None or k in LEAVES or k == "Union":
        return
    if k == "Optional":
        yield from mutation_points(t[1], v, path)
        return
    if k == "List":
        for i, x in enumerate(v):
            yield from mutation_points(t[1], x, path + (("idx", i),))
    elif k == "Dict":
        for i, (kk, vv) in enumerate(v.items()):
            yield from mutation_points(t[2], vv, path + (("key", kk, i),))
    elif k in ("Tuple", "NamedTuple"):
        for i, (c, x) in enumerate(zip(t[1], v)):
            step = ("field", i, f"f{i}") if k == "NamedTuple" else ("idx", i)
            yield from mutation_points(c, x, path + (step,))


def replace(v, steps, new):
    """`v` with the element at `steps` replaced by `new` (NamedTuples stay
    NamedTuples: they are rebuilt with their class)."""
    if not steps:
        return new
    step, rest = steps[0], steps[1:]
    if step[0] == "key":
        out = dict(v)
        out[step[1]] = replace(v[step[1]], rest, new)
        return out
    items = list(v)
    items[step[1]] = replace(items[step[1]], rest, new)
    if isinstance(v, list):
        return items
    return type(v)(*items) if hasattr(v, "_fields") else tuple(items)


# -------------------------------------------------------------- modules

def module_source(t):
    """A Python file whose module M has identity(x) and rebuild(x) for `t`."""
    classes, funcs, done = [], [], {}

    def visit(node):
        key = repr(node)
        if key in done:
            return done[key]
        for c in children(node):
            visit(c)
        name = f"rb_{len(done)}"
        done[key] = name
        ann = annotation(node)
        k = node[0]
        if k == "NamedTuple":
            fields = "".join(f"    f{i}: {annotation(c)}\n" for i, c in enumerate(node[1]))
            classes.append(f"class {nt_name(node)}(NamedTuple):\n{fields}")
        body = {
            "int": "    return x * 1\n",
            "dtype": "    return x * 1\n",
            "float": "    return x * 1.0\n",
            "bool": "    return not (not x)\n",
            "str": "    return '' + x\n",
            "Tensor": "    return x.clone()\n",
        }.get(k, "    return x\n")  # complex, Device, Union: as they are
        if k == "List":
            body = (f"    out: {ann} = []\n    for e in x:\n"
                    f"        out.append({done[repr(node[1])]}(e))\n    return out\n")
        elif k == "Dict":
            body = (f"    out: {ann} = {{}}\n    for k, v in x.items():\n"
                    f"        out[{done[repr(node[1])]}(k)] = {done[repr(node[2])]}(v)\n"
                    "    return out\n")
        elif k in ("Tuple", "NamedTuple"):
            items = ", ".join(f"{done[repr(c)]}(x[{i}])" for i, c in enumerate(node[1]))
            ctor = nt_name(node) if k == "NamedTuple" else ""
            body = f"    return {ctor}({items}{',' if k == 'Tuple' else ''})\n"
        elif k == "Optional":
            body = f"    if x is None:\n        return None\n    return {done[repr(node[1])]}(x)\n"
        funcs.append(f"def {name}(x: {ann}) -> {ann}:\n{body}")
        return name

    top = visit(t)
    ann = annotation(t)
    return (
        "import torch\n"
        "from typing import Dict, List, NamedTuple, Optional, Tuple, Union\n\n\n"
        + "\n\n".join(classes + funcs)
        + "\n\nclass M(torch.nn.Module):\n"
        f"    def forward(self, x: {ann}) -> {ann}:\n        return x\n\n"
        f"    @torch.jit.export\n    def identity(self, x: {ann}) -> {ann}:\n        return x\n\n"
        f"    @torch.jit.export\n    def rebuild(self, x: {ann}) -> {ann}:\n"
        f"        return {top}(x)\n")


# -------------------------------------------------------------- canon

def _float(x):
    return "nan" if math.isnan(x) else (x, math.copysign(1.0, x))


def _layout(t):
    """The strides that place elements: none for an empty tensor, none of a
    dimension of size 1 (DLPack normalizes those; no element moves)."""
    if t.numel() == 0:
        return None
    return tuple(s if n > 1 else None for n, s in zip(t.shape, t.stride()))


def canon(v, erase_names=False, layout=True):
    """A comparable form: kinds, Python types, values (NaN equal to NaN,
    -0.0 apart from 0.0), tensor dtype/shape/strides/values, NamedTuple
    class names and fields (or plain tuples with erase_names; no strides
    with layout=False)."""
    if v is None:
        return ("None",)
    if isinstance(v, bool):
        return ("bool", v)
    if isinstance(v, int):
        return ("int", v)
    if isinstance(v, float):
        return ("float", _float(v))
    if isinstance(v, complex):
        return ("complex", _float(v.real), _float(v.imag))
    if isinstance(v, str):
        return ("str", v)
    if isinstance(v, torch.Tensor):
        flat = v.detach().reshape(-1)
        if flat.dtype in (torch.float16, torch.bfloat16):
            flat = flat.double()
        return ("Tensor", str(v.dtype), tuple(v.shape), _layout(v) if layout else None,
                str(v.device),
                tuple(canon(x) for x in flat.tolist()))
    if isinstance(v, torch.device):
        return ("Device", str(v))
    if isinstance(v, torch.dtype):
        return ("dtype", str(v))
    if isinstance(v, tuple):
        items = tuple(canon(x, erase_names, layout) for x in v)
        if hasattr(v, "_fields") and not erase_names:
            return ("NamedTuple", type(v).__name__, tuple(v._fields), items)
        return ("tuple", items)
    if isinstance(v, list):
        return ("list", tuple(canon(x, erase_names, layout) for x in v))
    if isinstance(v, dict):
        return ("dict", tuple((canon(k, erase_names, layout), canon(x, erase_names, layout))
                              for k, x in v.items()))
    return ("other", type(v).__name__, repr(v))
