"""Writes the hostile module files every door is tried with (the C ABI's
hostile_input_test.cc, the Python host's and the CLI's test_hostile.py).

    make_hostile.py OUT_DIR

good.pt is a real module (PyTorch scripts it here); each other file is made
from it or from nothing, as its name says. Nothing binary is committed.
"""
import io
import os
import pickle
import sys
import zipfile

import torch

SOURCE = '''
from enum import Enum
from typing import List, NamedTuple
import torch


class Color(Enum):
    RED = 1
    GREEN = 2


class Tagged(NamedTuple):
    n: int
    tags: List[str]


@torch.jit.script
class Helper:
    def __init__(self, n: int):
        self.n = n


class Good(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + 1

    @torch.jit.export
    def total(self, xs: List[int]) -> int:
        return Helper(sum(xs)).n

    @torch.jit.export
    def tagged(self, t: Tagged) -> int:
        return t.n + len(t.tags)

    @torch.jit.export
    def color(self, c: Color) -> int:
        return c.value
'''


def good_module_bytes(work, string_table=True):
    """torch.jit.save of Good (its classes come from a file: TorchScript
    reads their source). string_table=False: the debug ranges in the format
    before PyTorch 1.11's string table."""
    import importlib.util
    path = os.path.join(work, "tsb_hostile_good.py")
    with open(path, "w") as f:
        f.write(SOURCE)
    spec = importlib.util.spec_from_file_location("tsb_hostile_good", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["tsb_hostile_good"] = mod
    spec.loader.exec_module(mod)
    buf = io.BytesIO()
    torch._C._set_should_use_format_with_string_table(string_table)
    try:
        torch.jit.save(torch.jit.script(mod.Good()), buf)
    finally:
        torch._C._set_should_use_format_with_string_table(True)
    return buf.getvalue()


class Tensors(torch.nn.Module):
    """A buffer (pickled in data.pkl) and, once traced, a constant
    (constants.pkl): the tensors LibTorch's importer rebuilds from a file."""

    def __init__(self):
        super().__init__()
        self.register_buffer("w", torch.arange(3.0))
        self.c = torch.arange(4.0)  # a plain attribute: the trace keeps it as a constant

    def forward(self, x):
        return x + self.w + self.c[:3]


def tensors_module_bytes():
    buf = io.BytesIO()
    torch.jit.save(torch.jit.trace(Tensors(), torch.zeros(3)), buf)
    return buf.getvalue()


def rewrite(archive, edit):
    """The archive with each record passed through edit(name, data), which
    returns new data or None to drop the record."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(archive)) as src, \
            zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as dst:
        for info in src.infolist():
            data = edit(info.filename, src.read(info.filename))
            if data is not None:
                dst.writestr(info.filename, data)
    return out.getvalue()


def hostile_files(good, good_legacy):
    """{file name: bytes}: every malformed module file the tests try, from
    Good saved with and without the debug ranges' string table."""
    tensor = io.BytesIO()
    torch.save(torch.ones(2), tensor)
    tensors = tensors_module_bytes()

    def code_without(name, data):
        return None if "/code/" in name and not name.endswith(".pkl") else data

    def missing_class(name, data):
        if "/code/" in name and name.endswith(".py"):
            return data.replace(b"Helper(", b"Nowhere(").replace(b".Helper", b".Nowhere")
        return data

    def in_good_code(old, new, count=-1):
        """An edit replacing `old` by `new` in Good's code record."""
        def edit(name, data):
            if name.endswith("/code/__torch__/tsb_hostile_good.py"):
                return data.replace(old, new, count)
            return data
        return edit

    # read as a constant, typed by nothing
    constant_without_type = in_good_code(b"__parameters__ = ", b"__pqrameters__ = ")
    # a NamedTuple field as an assignment: typed by nothing
    field_without_type = in_good_code(b"tags : List[str]", b"tags = List[str]")
    # an Enum member as a declaration: valued by nothing
    enum_member_without_value = in_good_code(b"RED = 1", b"RED : int")
    # lists and annotations the importer reads as declarations: no value
    buffers_without_value = in_good_code(b"__buffers__ = []", b"__buffers__ : []")
    annotation_without_value = in_good_code(
        b"  training : bool", b'  __annotations__["0"] : Tensor\n  training : bool', 1)
    # a class member outdented: the class ends, a stray line
    syntax_error = in_good_code(b"\n  __buffers__ = ", b"\n__buffers__ = ", 1)
    # the parser itself refuses it
    unbalanced_paren = in_good_code(b"return torch.add(x, 1)", b"return torch.add(x, 1))", 1)

    def undefined_default(name, data):  # its report reads the debug ranges
        if "/code/" in name and name.endswith(".py"):  # Good's file may be mangled
            return data.replace(b"x: Tensor) -> Tensor:", b"x: Tensor=nowhere) -> Tensor:", 1)
        return data

    def in_debug_ranges(edit):
        """undefined_default, whose report reads the debug ranges, with the
        ranges' record passed through edit(data)."""
        def rewrite_record(name, data):
            return edit(data) if name.endswith(".debug_pkl") else undefined_default(name, data)
        return rewrite_record

    bad_debug_ranges = in_debug_ranges(lambda data: pickle.dumps(1, protocol=2))
    # A debug text whose last line lacks its newline, before the empty string
    # every text ends with: LibTorch 1.13 walks into that empty piece and
    # asserts inside its error report's noexcept what().
    debug_line_unterminated = in_debug_ranges(
        lambda data: data.replace(b"        return x + 1\n", b"        return x + 1 ", 1))

    def line_made_empty(data):  # the same walk, into a line made empty
        line = b"    def tagged(self, t: Tagged) -> int:\n"
        pickled = b"X" + len(line).to_bytes(4, "little") + line  # BINUNICODE
        assert pickled in data
        return data.replace(pickled, b"X\0\0\0\0", 1)
    debug_line_empty = in_debug_ranges(line_made_empty)

    def sized(record, old, new):
        """A tensor's sizes changed in one pickle record: (old,) -> (new,), a
        tensor larger than its storage. LibTorch's importer (and Python's
        torch.jit.load) keeps it as written; reading it reads past the storage."""
        def edit(name, data):
            if name.endswith(record):
                sizes = b"(K" + bytes([old]) + b"t(K\x01t"  # sizes, then strides (1,)
                assert sizes in data, name
                return data.replace(sizes, b"(K" + bytes([new]) + b"t(K\x01t", 1)
            return data
        return edit

    def huge_pickle(name, data):  # a memo index far past the program's end
        return b"\x80\x02Nr\xff\xff\xff\x7f." if name.endswith("/data.pkl") else data

    return {
        "good.pt": good,
        "empty.pt": b"",
        "truncated_half.pt": good[: len(good) // 2],
        "truncated_tail.pt": good[:-7],
        "truncated_head.pt": good[:10],
        "wrong_magic.pt": b"XXXX" + good[4:],
        "text.pt": b"def forward(self, x):\n    return x\n",
        "missing_code.pt": rewrite(good, code_without),
        "missing_class.pt": rewrite(good, missing_class),
        "huge_memo.pt": rewrite(good, huge_pickle),
        "constant_without_type.pt": rewrite(good, constant_without_type),
        "field_without_type.pt": rewrite(good, field_without_type),
        "enum_member_without_value.pt": rewrite(good, enum_member_without_value),
        "buffers_without_value.pt": rewrite(good, buffers_without_value),
        "annotation_without_value.pt": rewrite(good, annotation_without_value),
        "syntax_error.pt": rewrite(good, syntax_error),
        "unbalanced_paren.pt": rewrite(good, unbalanced_paren),
        "bad_debug_ranges.pt": rewrite(good, bad_debug_ranges),
        "debug_line_unterminated.pt": rewrite(good, debug_line_unterminated),
        "debug_line_empty.pt": rewrite(good, debug_line_empty),
        "undefined_default.pt": rewrite(good, undefined_default),
        "undefined_default_legacy.pt": rewrite(good_legacy, undefined_default),
        "tensor_not_module.pt": tensor.getvalue(),
        "tensors.pt": tensors,
        "buffer_past_storage.pt": rewrite(tensors, sized("/data.pkl", 3, 9)),
        "constant_past_storage.pt": rewrite(tensors, sized("/constants.pkl", 4, 9)),
    }


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    good = good_module_bytes(out)
    good_legacy = good_module_bytes(out, string_table=False)
    for name, data in hostile_files(good, good_legacy).items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
