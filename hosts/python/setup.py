"""Builds the tsbridge Python package against an installed libtsbridge
(pyproject.toml; docs/install.md, "Python"):

    /usr/bin/python3 -m pip install --no-build-isolation --no-index ./hosts/python

- tsbridge._native, from src/*.cc: the headers and the library come from
  `pkg-config --cflags --libs tsbridge` (PKG_CONFIG_PATH=PREFIX/lib/pkgconfig
  for a `cmake --install` prefix). It links that libtsbridge, with an RPATH to
  its directory unless that is a system library directory; the bundled
  plugins are found next to the library (LIBDIR/tsbridge/plugins).
- tsbridge._torch, the optional torch fast path (companion/): built when the
  interpreter imports torch and LibTorch's Python library, its headers,
  pybind11's headers and Abseil's pkg-config files are there; else skipped
  with a message (tensors then cross as DLPack; docs/python.md).

The self-contained package of a CMake build tree is build/python instead
(setup.py.in).
"""
import os
import shlex
import subprocess
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

SOURCES = ["src/autograd.cc", "src/calls.cc", "src/errors.cc", "src/from_python.cc",
           "src/module.cc", "src/tensors.cc", "src/to_python.cc", "src/types.cc"]
HEADERS = ["src/calls.h", "src/host.h", "src/torch_fastpath.h"]

NOT_FOUND = """\
tsbridge: pkg-config cannot find tsbridge ({why}).
The Python package builds against an installed libtsbridge:
  - Debian: apt-get install libtsbridge-dev pkg-config
  - a CMake install: cmake --install build --prefix PREFIX, then
    PKG_CONFIG_PATH=PREFIX/lib/pkgconfig pip install ...
  - or, from a build tree, the self-contained package: pip install build/python
(docs/install.md, "Python")."""


def say(text):
    """A line pip shows with -v (and always when the build fails)."""
    print(text, flush=True)


def system_libdir(path):
    """Whether the dynamic linker searches `path` without an RPATH:
    /lib, /usr/lib, /lib64, /usr/lib64 and the multiarch /usr/lib/<triplet>."""
    path = os.path.realpath(path)
    if path in ("/lib", "/lib64", "/usr/lib", "/usr/lib64"):
        return True
    parent, name = os.path.split(path)
    return parent in ("/lib", "/usr/lib") and "-linux-" in name


def pkg_config(*args, package="tsbridge"):
    program = os.environ.get("PKG_CONFIG", "pkg-config")
    run = subprocess.run([program, *args, package], capture_output=True, text=True)
    if run.returncode != 0:
        raise LookupError(run.stderr.strip() or "pkg-config %s %s failed" % (" ".join(args),
                                                                             package))
    return run.stdout.strip()


def find_tsbridge():
    """The flags for libtsbridge, from pkg-config; exits with what to install."""
    try:
        version = pkg_config("--modversion")
        cflags = shlex.split(pkg_config("--cflags"))
        libs = shlex.split(pkg_config("--libs"))
        libdir = pkg_config("--variable=libdir")
        includedir = pkg_config("--variable=includedir")
    except FileNotFoundError:
        sys.exit(NOT_FOUND.format(why="no pkg-config program"))
    except LookupError as e:
        sys.exit(NOT_FOUND.format(why=str(e).splitlines()[0] if str(e) else "not found"))
    if not os.path.isfile(os.path.join(includedir, "tsbridge", "tsbridge.h")):
        sys.exit("tsbridge: pkg-config's tsbridge %s has no %s" % (
            version, os.path.join(includedir, "tsbridge", "tsbridge.h")))
    rpath = [] if system_libdir(libdir) else [os.path.realpath(libdir)]
    say("tsbridge: libtsbridge %s found by pkg-config: headers in %s, library in %s (%s)" % (
        version, os.path.realpath(includedir), os.path.realpath(libdir),
        "RPATH " + rpath[0] if rpath else "a system directory: no RPATH"))
    return {"version": version, "cflags": cflags, "libs": libs, "rpath": rpath}


def find_first(directories, relative):
    for d in directories:
        if d and os.path.exists(os.path.join(d, relative)):
            return d
    return None


def library_dirs():
    """Where the linker looks by default, for LibTorch's Python library."""
    dirs = [sysconfig.get_config_var("LIBDIR")]
    multiarch = sysconfig.get_config_var("MULTIARCH")
    if multiarch:
        dirs += ["/usr/lib/" + multiarch, "/lib/" + multiarch]
    return dirs + ["/usr/lib64", "/usr/lib", "/lib64", "/lib"]


def find_torch_companion():
    """What tsbridge._torch needs, or the reason it is skipped."""
    try:
        import torch  # noqa: F401 (the torch this interpreter imports)
    except Exception as e:  # noqa: BLE001 (any import failure means no torch)
        return None, "this Python cannot import torch (%s)" % e
    torch_dir = os.path.dirname(torch.__file__)
    includes = [os.path.join(torch_dir, "include"), "/usr/include"]
    torch_include = find_first(includes, "torch/csrc/autograd/python_variable.h")
    if torch_include is None:
        return None, "no torch/csrc/autograd/python_variable.h (Debian: libtorch-dev)"
    torch_libdir = find_first([os.path.join(torch_dir, "lib")] + library_dirs(),
                              "libtorch_python.so")
    if torch_libdir is None:
        return None, "no libtorch_python.so (Debian: libtorch-dev)"
    # Debian's torch/lib holds links to /usr/lib/<triplet>: link there.
    torch_libdir = os.path.dirname(os.path.realpath(os.path.join(torch_libdir,
                                                                 "libtorch_python.so")))
    pybind_dirs = [torch_include]
    try:
        import pybind11
        pybind_dirs.append(pybind11.get_include())
    except ImportError:
        pass
    pybind_include = find_first(pybind_dirs + ["/usr/include"], "pybind11/pybind11.h")
    if pybind_include is None:
        return None, "no pybind11 headers (Debian: pybind11-dev)"
    try:
        absl_cflags = shlex.split(pkg_config("--cflags", package="absl_status absl_statusor"))
        absl_libs = shlex.split(pkg_config("--libs", package="absl_status absl_statusor"))
    except (FileNotFoundError, LookupError):
        return None, "pkg-config finds no absl_status, absl_statusor (Debian: libabsl-dev)"
    abi = int(getattr(torch._C, "_GLIBCXX_USE_CXX11_ABI", True))
    return {
        "include_dirs": [torch_include, os.path.join(torch_include, "torch/csrc/api/include"),
                         pybind_include],
        "libdir": torch_libdir,
        "cflags": absl_cflags + ["-D_GLIBCXX_USE_CXX11_ABI=%d" % abi],
        "libs": ["-L" + torch_libdir, "-ltorch_python", "-ltorch", "-ltorch_cpu", "-lc10"]
                + absl_libs,
    }, None


def rpath_args(dirs):
    return ["-Wl,-rpath," + d for d in dirs]


class BuildExt(build_ext):
    """Fills the extensions' flags from pkg-config when the build runs (so
    the package's metadata needs no library), and drops the companion when
    what it needs is missing."""

    def run(self):
        tsb = find_tsbridge()
        keep = []
        for ext in self.extensions:
            if getattr(ext, "tsb_flags", False):  # run once already
                keep.append(ext)
                continue
            ext.tsb_flags = True
            ext.extra_compile_args += tsb["cflags"] + ["-fvisibility=hidden"]
            ext.extra_link_args += tsb["libs"] + rpath_args(tsb["rpath"])
            if ext.name == "tsbridge._torch":
                torch, why = find_torch_companion()
                if torch is None:
                    say("tsbridge: the torch fast path tsbridge._torch is not built: %s; "
                        "tensors cross as DLPack (docs/python.md)" % why)
                    continue
                ext.include_dirs += torch["include_dirs"]
                ext.extra_compile_args += torch["cflags"]
                rpath = [] if system_libdir(torch["libdir"]) else [torch["libdir"]]
                ext.extra_link_args += torch["libs"] + rpath_args(rpath)
                say("tsbridge: building the torch fast path tsbridge._torch against %s" %
                    torch["libdir"])
            keep.append(ext)
        self.extensions = keep
        super().run()


# setuptools runs this file as __main__ (pip, build_meta); importing it
# (tests/package/source_install.py) only defines the functions above.
if __name__ == "__main__":
    setup(
        packages=["tsbridge"],
        zip_safe=False,
        ext_modules=[
            Extension("tsbridge._native", SOURCES, depends=HEADERS, language="c++",
                      extra_compile_args=["-std=c++17", "-Wno-missing-field-initializers"]),
            Extension("tsbridge._torch", ["companion/torch_fastpath.cc"],
                      depends=["src/torch_fastpath.h"], include_dirs=["src"], language="c++",
                      extra_compile_args=["-std=c++20"]),
        ],
        cmdclass={"build_ext": BuildExt},
    )
