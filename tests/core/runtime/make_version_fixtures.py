"""Writes the archives whose versions clash with the LibTorch that loads them
(docs/install.md, "When versions clash"), from files this PyTorch makes.

Usage: make_version_fixtures.py OUTDIR EXPORT_FIXTURES. Writes into OUTDIR:
  current.pt        a module torch.jit.save wrote (TorchScript file format 3)
  newer_format.pt   the same archive with its file format version records
                    (`version`, `.data/version`) set to 11, one above what
                    LibTorch 1.13, 2.6 and 2.14 read: what a newer PyTorch
                    that bumped the format would write
  unknown_op.pt     the same archive whose code calls aten::tsb_newer_op, an
                    operator no LibTorch has: what a newer PyTorch's operator
                    looks like to an older LibTorch (its debug ranges left out,
                    as they describe the code before the change)
  newer_torch.pt2   with AOTInductor (2.6 and newer): EXPORT_FIXTURES's
                    nested.pt2 whose model library needs the libtorch_cpu of
                    the next release (libtorch_cpu.so.2.6 becomes .so.2.7, the
                    same length), as a package compiled by it does
  versions.json     {"libtorch": this release, "newer_format": 11,
                     "newer_torch": the .pt2's release or null,
                     "other_torch_plugin": the release the other_torch
                     fixture plugin claims (tests/core/plugins/fixtures/other_torch.h)}
Python's zipfile rewrites the records; nothing here is a stored binary.
"""
import json
import pathlib
import re
import sys
import zipfile

import torch

NEWER_FORMAT = 11

out = pathlib.Path(sys.argv[1])
export_fixtures = pathlib.Path(sys.argv[2])
out.mkdir(parents=True, exist_ok=True)
release = ".".join(torch.__version__.split(".")[:2])


def rewrite(src, dst, change):
    """Copies the zip `src` to `dst`, each entry's bytes through change(name,
    data), which returns the new bytes or None to leave the entry out."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as zout:
        for info in zin.infolist():
            data = change(info.filename, zin.read(info.filename))
            if data is not None:
                zout.writestr(info, data)


class Negate(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.neg(x)


torch.jit.save(torch.jit.script(Negate()), str(out / "current.pt"))


def newer_format(name, data):
    if name.endswith("/version") or name.endswith("/.data/version"):
        return f"{NEWER_FORMAT}\n".encode()
    return data


def unknown_op(name, data):
    if "/code/" in name and name.endswith(".debug_pkl"):
        return None
    if "/code/" in name and name.endswith(".py"):
        changed = data.replace(b"torch.neg(", b"torch.tsb_newer_op(")
        assert changed != data, f"no torch.neg( in {name}"
        return changed
    return data


rewrite(out / "current.pt", out / "newer_format.pt", newer_format)
rewrite(out / "current.pt", out / "unknown_op.pt", unknown_op)


def next_release(r):
    """The release after `r` written with as many characters: 2.6 -> 2.7,
    2.14 -> 2.15; a minor ending in 9 moves the major (2.9 -> 3.9)."""
    major, minor = r.split(".")
    if minor[-1] != "9":
        return f"{major}.{minor[:-1]}{int(minor[-1]) + 1}"
    return f"{int(major) + 1}.{minor}"


newer_torch = None
package = export_fixtures / "nested.pt2"
if package.exists():
    newer_torch = next_release(release)
    ours, theirs = f"libtorch_cpu.so.{release}\0".encode(), f"libtorch_cpu.so.{newer_torch}\0".encode()

    def relink(name, data):
        if "/aotinductor/" in f"/{name}" and name.endswith(".so"):
            assert ours in data, f"{name} does not need {ours!r}"
            return data.replace(ours, theirs)
        return data

    rewrite(package, out / "newer_torch.pt2", relink)

other_torch_plugin = "2.14" if release == "2.6" else "2.6"
assert re.fullmatch(r"\d+\.\d+", release), release
(out / "versions.json").write_text(json.dumps({
    "libtorch": release, "newer_format": NEWER_FORMAT, "newer_torch": newer_torch,
    "other_torch_plugin": other_torch_plugin}, indent=1) + "\n")
