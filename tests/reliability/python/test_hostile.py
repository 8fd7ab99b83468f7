"""Hostile inputs at the Python host's and the command line's doors
(docs/reliability.md, "Hostile inputs"): malformed module files, JSON nested
100k deep, huge declared lengths, invalid UTF-8, NaN and infinities where
ints are expected. Each gives a tsbridge.Error (or, from `tsb`, exit code 1
and a message on stderr), and the process goes on working.
"""
import io
import math
import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest
import torch

import tsbridge

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "hostile"))
import make_hostile  # noqa: E402

CLI = os.environ.get("TSB_CLI")
BAD_FILES = ["empty.pt", "truncated_half.pt", "truncated_tail.pt", "truncated_head.pt",
             "wrong_magic.pt", "text.pt", "missing_code.pt", "missing_class.pt",
             "huge_memo.pt", "constant_without_type.pt", "field_without_type.pt",
             "enum_member_without_value.pt", "buffers_without_value.pt",
             "annotation_without_value.pt",
             "syntax_error.pt",
             "unbalanced_paren.pt", "bad_debug_ranges.pt",
             "debug_line_unterminated.pt", "debug_line_empty.pt", "undefined_default.pt",
             "undefined_default_legacy.pt", "tensor_not_module.pt",
             "buffer_past_storage.pt", "constant_past_storage.pt"]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    out = tmp_path_factory.mktemp("hostile")
    good = make_hostile.good_module_bytes(str(out))
    legacy = make_hostile.good_module_bytes(str(out), string_table=False)
    for name, data in make_hostile.hostile_files(good, legacy).items():
        (out / name).write_bytes(data)
    return out


def still_works(files):
    m = tsbridge.load(files / "good.pt")
    assert m.total([1, 2]) == 3
    assert torch.equal(m(torch.zeros(2)), torch.ones(2))


@pytest.mark.parametrize("name", BAD_FILES + ["no_such_file.pt"])
def test_bad_module_file(files, name):
    live = tsbridge._native.live_handles()
    with pytest.raises(tsbridge.Error) as caught:
        tsbridge.load(files / name)
    assert len(str(caught.value)) > 20, str(caught.value)
    assert tsbridge._native.live_handles() == live
    still_works(files)


def test_missing_class_is_named(files):
    with pytest.raises(tsbridge.Error, match="Nowhere"):
        tsbridge.load(files / "missing_class.pt")


def test_tensor_past_its_storage_is_refused(files):
    if tuple(int(p) for p in torch.__version__.split(".")[:2]) >= (2, 14):
        # LibTorch 2.14's importer refuses it itself, in its own words
        for name, size in (("buffer_past_storage.pt", 12), ("constant_past_storage.pt", 16)):
            with pytest.raises(tsbridge.TorchError,
                               match=f"at least 36 bytes, but storage only has {size} bytes"):
                tsbridge.load(files / name)
    else:
        # 1.13's and 2.6's torch.jit.load keep such a tensor as written (and
        # read past it): tsbridge refuses it after the import, with its path
        with pytest.raises(tsbridge.InvalidArgumentError, match=r"12-byte storage at field 'w'"):
            tsbridge.load(files / "buffer_past_storage.pt")
        with pytest.raises(tsbridge.InvalidArgumentError, match="in a constant of"):
            tsbridge.load(files / "constant_past_storage.pt")
    m = tsbridge.load(files / "tensors.pt")
    assert torch.equal(m(torch.zeros(3)), torch.tensor([0.0, 2.0, 4.0]))


DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize("annotation", ["Any", "List[List[int]]", "List[Any]"])
def test_json_nested_100k_deep(files, annotation):
    with pytest.raises(tsbridge.Error):
        tsbridge.from_json(DEEP, annotation)
    still_works(files)


def test_python_value_nested_deep(files):
    value = []
    for _ in range(100_000):
        value = [value]
    with pytest.raises((tsbridge.Error, RecursionError)):
        tsbridge.convert(value, "Any")
    still_works(files)


@pytest.mark.parametrize("shape", ["[4294967296, 4294967296]", "[9223372036854775807]",
                                   "[-1]", "[1e300]"])
def test_json_tensor_huge_shape(files, shape):
    with pytest.raises(tsbridge.Error, match="shape"):
        tsbridge.from_json(f'{{"dtype": "float32", "shape": {shape}, "data": [1]}}', "Tensor")
    still_works(files)


@pytest.mark.parametrize("text", [b'"\xff"', b'"\xc3"', b'"\xed\xa0\x80"', b'{"\xfe": 1}'])
def test_json_invalid_utf8(files, text):
    # Python's str cannot hold invalid UTF-8: surrogateescape smuggles the bytes.
    with pytest.raises((tsbridge.Error, UnicodeEncodeError)):
        tsbridge.from_json(text.decode("utf-8", "surrogateescape"), "Any")
    still_works(files)


# Past UINT64_MAX: since ABI 1.6 an int in (INT64_MAX, UINT64_MAX] is a uint
# (test_uint.py), taken where LibTorch has one.
@pytest.mark.parametrize("text", ["NaN", "Infinity", "-Infinity", "1e400", "1.5",
                                  "18446744073709551616", "1e19"])
def test_json_non_integers_where_ints_are_expected(files, text):
    with pytest.raises(tsbridge.Error):
        tsbridge.from_json(text, "int")
    with pytest.raises(tsbridge.Error) as caught:
        tsbridge.from_json(f"[1, {text}]", "List[int]")
    if text not in ("NaN", "Infinity", "-Infinity", "1e400"):  # those are not JSON
        assert "[1]" in caught.value.path, caught.value.path
    still_works(files)


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, 1e300, 0.5])
def test_python_floats_where_ints_are_expected(files, value):
    with pytest.raises(tsbridge.TypeMismatchError):
        tsbridge.convert(value, "int")
    with pytest.raises(tsbridge.TypeMismatchError) as caught:
        tsbridge.convert([1, value], "List[int]")
    assert "[1]" in caught.value.path
    m = tsbridge.load(files / "good.pt")
    with pytest.raises(tsbridge.TypeMismatchError, match="xs"):
        m.total([1, value])
    still_works(files)


def test_python_int_too_big(files):
    with pytest.raises(tsbridge.TypeMismatchError, match="out of range"):
        tsbridge.convert([1, 2**64], "List[int]")
    still_works(files)


def test_huge_declared_pickle_length(files):
    with pytest.raises(tsbridge.Error):
        tsbridge.from_pickle(b"\x80\x02X\xff\xff\xff\xffabc.")
    buf = io.BytesIO()
    torch.save([1, 2], buf)
    with pytest.raises(tsbridge.Error):
        tsbridge.from_pickle(buf.getvalue()[:-30])  # truncated
    assert tsbridge.from_pickle(buf.getvalue()) == [1, 2]


def test_deep_type_string(files):
    with pytest.raises(tsbridge.Error):
        tsbridge.convert(1, "List[" * 100_000 + "int" + "]" * 100_000)
    still_works(files)


# ------------------------------------------------------------- the CLI

# The sanitizer stage preloads ASan's shared runtime into Python; tsb there
# carries its own static one, and the two refuse to meet.
CLI_ENV = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}


def tsb(*args, stdin=None):
    return subprocess.run([CLI, *map(str, args)], capture_output=True, text=True,
                          errors="replace", input=stdin, timeout=120, env=CLI_ENV)


needs_cli = pytest.mark.skipif(not CLI, reason="no tsb command line in this build")


@needs_cli
@pytest.mark.parametrize("name", BAD_FILES + ["no_such_file.pt"])
def test_cli_bad_module_file(files, name):
    r = tsb("run", files / name, "total", "--args", "[[1, 2]]")
    assert r.returncode == 1, (r.returncode, r.stderr)  # an error, not a signal
    assert len(r.stderr.strip()) > 20, r.stderr


@needs_cli
@pytest.mark.parametrize("args", [
    "[" * 50_000 + "]" * 50_000,  # as deep as one argv string may be (128 KiB)
    "[[1, NaN]]", "[[1, 1e400]]", "[[1, 1.5]]", "[[1, 18446744073709551616]]",
    '[["\udcff"]]', "[" + "[" * 5000,
])
def test_cli_bad_arguments(files, args):
    r = tsb("run", files / "good.pt", "total", "--args", args)
    assert r.returncode in (1, 2), (r.returncode, r.stderr[-500:])  # 2: not JSON
    assert r.stderr.strip(), "no message"
    ok = tsb("run", files / "good.pt", "total", "--args", "[[1, 2]]")
    assert ok.returncode == 0 and ok.stdout.strip() == "3", ok.stderr


# ------------------------------------------------- operator libraries

OPLIB = os.environ.get("TSB_OPLIB_FIXTURE")
needs_oplib = pytest.mark.skipif(not OPLIB, reason="TSB_OPLIB_FIXTURE not set")


def patched(data, offset, new):
    return data[:offset] + new + data[offset + len(new):]


def cut_in_last_segment(data):
    """Cut in the middle of the last PT_LOAD segment (a plain half may keep
    every segment whole when debug sections fill the second half)."""
    phoff, = struct.unpack_from("<Q", data, 32)
    phentsize, phnum = struct.unpack_from("<HH", data, 54)
    cut = len(data) // 2
    for i in range(phnum):
        kind, _, offset, _, _, filesz = struct.unpack_from("<IIQQQQ", data, phoff + i * phentsize)
        if kind == 1 and filesz:  # PT_LOAD
            cut = offset + filesz // 2
    return data[:cut]


# Each made from the loader tests' fixture library (tests/core/runtime/library.cmake).
BAD_LIBRARIES = {
    "empty.so": lambda good: b"",
    "head.so": lambda good: good[:64],
    "half.so": cut_in_last_segment,
    "text.so": lambda good: b"not an ELF shared object, only text, " * 4,
    "class32.so": lambda good: patched(good, 4, b"\x01"),
    "big_endian.so": lambda good: patched(good, 5, b"\x02"),
    "aarch64.so": lambda good: patched(good, 18, b"\xb7\x00"),
}


@needs_oplib
@pytest.mark.parametrize("name", sorted(BAD_LIBRARIES) + ["no_such.so", "a_directory.so"])
def test_bad_operator_library(files, tmp_path, name):
    good = Path(OPLIB).read_bytes()
    tsbridge.load_library(OPLIB)
    path = tmp_path / name
    if name == "a_directory.so":
        path.mkdir()
    elif name in BAD_LIBRARIES:
        path.write_bytes(BAD_LIBRARIES[name](good))
    count = len(tsbridge.libraries())
    with pytest.raises(tsbridge.Error) as caught:
        tsbridge.load_library(path)
    assert f"cannot load operator library '{path}'" in str(caught.value), str(caught.value)
    assert len(tsbridge.libraries()) == count
    x = torch.tensor([1.5, -2.0])
    assert torch.equal(tsbridge.ops.tsbfixture.twice(x), x * 2)
    still_works(files)


@needs_oplib
def test_copy_of_a_loaded_library_is_that_library(tmp_path):
    first = tsbridge.load_library(OPLIB)
    copy = tmp_path / "copy.so"
    copy.write_bytes(Path(OPLIB).read_bytes())
    assert tsbridge.load_library(copy).path == first.path  # not run twice: no abort


@needs_cli
@needs_oplib
def test_cli_bad_operator_library(files, tmp_path):
    bad = tmp_path / "half.so"
    bad.write_bytes(cut_in_last_segment(Path(OPLIB).read_bytes()))
    r = tsb("--library", bad, "run", files / "good.pt", "total", "--args", "[[1, 2]]")
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert "cannot load operator library" in r.stderr, r.stderr
