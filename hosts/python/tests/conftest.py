"""Shared fixtures: the corpus modules, scripted once per session, and a
comparison of a tsbridge result with PyTorch's own, kind by kind."""
import enum
import math
import os
import sys
import tempfile
from pathlib import Path

import pytest
import torch

import tsbridge

# The shared fixture module (tests/testing/fixtures.py): Point, Color,
# Counter and the scripted models the tests save.
sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tests" / "testing"))
import corpus  # noqa: E402


@pytest.fixture(scope="session")
def modules():
    """{name: (PyTorch's scripted module, tsbridge's loaded one)}"""
    work = os.environ.get("TSB_PY_TEST_WORK") or tempfile.mkdtemp(prefix="tsb_py_")
    saved = corpus.save_modules(work)
    return {name: (scripted, tsbridge.load(path)) for name, (scripted, path) in saved.items()}


def assert_same(got, want, where="result"):
    """Structure, Python types, values; namedtuple names and fields; Enum
    classes by name and members; objects by their fields."""
    if isinstance(got, tsbridge.Object):
        # PyTorch gives an instance of the scripted Python class (in the
        # process that scripted it) or a ScriptObject: compare by name and fields.
        want_name = (want._type().qualified_name() if isinstance(want, torch._C.ScriptObject)
                     else type(want).__qualname__).rsplit(".", 1)[-1]
        assert type(got).__name__ == want_name, where
        assert type(got)._tsb_fields, where
        for field in type(got)._tsb_fields:
            assert_same(getattr(got, field), getattr(want, field), f"{where}.{field}")
        return
    if isinstance(want, enum.Enum):
        assert isinstance(got, enum.Enum), f"{where}: {got!r} is not an Enum"
        assert type(got).__name__ == type(want).__name__, where
        assert got.name == want.name, where
        assert_same(got.value, want.value, f"{where}.value")
        return
    if isinstance(want, tuple) and hasattr(want, "_fields"):
        assert hasattr(got, "_fields"), f"{where}: {got!r} is not a namedtuple"
        assert type(got).__name__ == type(want).__name__, where
        assert got._fields == want._fields, where
    else:
        assert type(got) is type(want), f"{where}: {type(got)} != {type(want)}"
    if isinstance(want, torch.Tensor):
        assert got.dtype == want.dtype and got.shape == want.shape, where
        assert torch.equal(got, want), f"{where}: {got} != {want}"
    elif isinstance(want, (list, tuple)):
        assert len(got) == len(want), where
        for i, (g, w) in enumerate(zip(got, want)):
            assert_same(g, w, f"{where}[{i}]")
    elif isinstance(want, dict):
        assert list(got.keys()) == list(want.keys()), f"{where}: keys"
        for k in want:
            assert_same(got[k], want[k], f"{where}[{k!r}]")
    elif isinstance(want, float):
        assert (math.isnan(got) and math.isnan(want)) or (
            got == want and math.copysign(1, got) == math.copysign(1, want)), where
    else:
        assert got == want, f"{where}: {got!r} != {want!r}"
