"""Per drawn type: the module PyTorch scripts, saved and loaded by tsbridge;
the counts the differential tests report; the error-path check."""
import collections
import importlib
import os
import sys
import tempfile
from pathlib import Path

import torch

import tsbridge
import ts_types

COUNTS = collections.Counter()
WORK = Path(os.environ.get("TSB_DIFF_WORK") or tempfile.mkdtemp(prefix="tsb_diff_"))
WORK.mkdir(parents=True, exist_ok=True)
sys.path.insert(0, str(WORK))


class Pair:
    """One drawn type: PyTorch's scripted module and tsbridge's load of it."""

    def __init__(self, t, gen, scripted, loaded):
        self.t = t
        self.gen = gen          # the generated Python module (NamedTuple classes)
        self.scripted = scripted
        self.loaded = loaded
        args = loaded._schemas["identity"]["arguments"]
        self.type_index = [a for a in args if a["name"] == "x"][0]["type_index"]

    def value(self, raw):
        classes = {n: getattr(self.gen, n) for n in dir(self.gen) if n.startswith("NT_")}
        return ts_types.with_classes(self.t, raw, classes)


_pairs = {}


def pair(t):
    """The Pair of `t`, or None when PyTorch cannot script the type (counted
    by PyTorch's message)."""
    key = ts_types.type_id(t)
    if key in _pairs:
        return _pairs[key]
    name = f"gen_{key}"
    (WORK / f"{name}.py").write_text(ts_types.module_source(t))
    importlib.invalidate_caches()
    gen = importlib.import_module(name)
    try:
        scripted = torch.jit.script(gen.M())
    except Exception as e:  # noqa: BLE001  (PyTorch's frontend raises many kinds)
        COUNTS["types PyTorch cannot script: " + str(e).strip().splitlines()[0][:90]] += 1
        _pairs[key] = None
        return None
    path = WORK / f"{name}.pt"
    torch.jit.save(scripted, str(path))
    COUNTS["types scripted"] += 1
    _pairs[key] = Pair(t, gen, scripted, tsbridge.load(path))
    return _pairs[key]


def path_tokens(step):
    """What tsbridge's error path may name for one step: a list or tuple
    index "[i]"; a NamedTuple field by name; a dict value by its key (the
    host's "key 'b'") or by its position (the C ABI's "values[i]")."""
    if step[0] == "idx":
        return [f"[{step[1]}]"]
    if step[0] == "field":
        return [step[2]]
    key, i = step[1], step[2]
    if isinstance(key, torch.Tensor):
        named = ["key tensor("]
    elif isinstance(key, str):  # the one path syntax: key "b"
        named = [f'key "{key}"', repr(key)]  # printed as is, between quotes
    else:
        named = [repr(key)]
    return named + [f"values[{i}]"]


def assert_path_points_at(error, steps):
    """The status path names each step, in order."""
    path, at = error.path, 0
    for step in steps:
        found = [(path.find(t, at), t) for t in path_tokens(step)]
        found = [(f, t) for f, t in found if f >= 0]
        assert found, f"path {path!r} does not name {path_tokens(step)} (steps {steps})"
        f, t = min(found)
        at = f + len(t)
