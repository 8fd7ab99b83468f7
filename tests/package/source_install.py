"""Source installs of the hosts against an installed tsbridge, as each
ecosystem installs (docs/install.md, "Building against an install"): the
build tree installed into a prefix, then pip, R CMD INSTALL and cargo with
only PKG_CONFIG_PATH pointing at it (pkg-config's own variable: no tsbridge
variable), from clean copies of hosts/python, hosts/r and hosts/rust; each
calls the installed example model with tensors. The *-routes steps check
the order in which each finds the library, and the message when nothing
is found. Run by ctest (tests/package/CMakeLists.txt):

  source_install.py prefix CMAKE BUILD_DIR PREFIX
  source_install.py python SOURCE_DIR PREFIX WORK
  source_install.py python-routes SOURCE_DIR PREFIX WORK
  source_install.py r SOURCE_DIR PREFIX WORK R RSCRIPT
  source_install.py r-routes SOURCE_DIR PREFIX WORK BUILD_DIR
  source_install.py rust SOURCE_DIR PREFIX WORK CARGO RUSTC
  source_install.py rust-routes SOURCE_DIR PREFIX WORK CARGO RUSTC
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import time
import zipfile
from pathlib import Path

# What the tests take away from the environment: every way of pointing at a
# tsbridge other than PKG_CONFIG_PATH, which each test sets itself.
DROPPED = re.compile(r"^(TSB_|TSBRIDGE_|PKG_CONFIG|INCLUDE_DIR$|LIB_DIR$|PYTHONPATH$|"
                     r"LD_LIBRARY_PATH$|LD_PRELOAD$|R_LIBS|CARGO_TARGET_DIR$|CARGO_BUILD_|"
                     r"RUSTFLAGS$|CFLAGS$|CPPFLAGS$|CXXFLAGS$|LDFLAGS$|MAKEFLAGS$)")
BUILD_PRODUCTS = shutil.ignore_patterns("build", "target", "*.egg-info", "__pycache__", "*.o",
                                        "*.so", "Makevars", "tests")


class Failed(Exception):
    pass


def env_with(**extra):
    env = {k: v for k, v in os.environ.items() if not DROPPED.match(k)}
    env.update({k: str(v) for k, v in extra.items()})
    return env


def run(what, cmd, env, cwd=None, expect_ok=True):
    start = time.monotonic()
    p = subprocess.run([str(c) for c in cmd], env=env, cwd=cwd, capture_output=True, text=True)
    out = p.stdout + p.stderr
    print("== %s (%.1f s, exit %d)" % (what, time.monotonic() - start, p.returncode), flush=True)
    if (p.returncode == 0) != expect_ok:
        print(out)
        raise Failed("%s: %s" % (what, "failed" if expect_ok else "succeeded, expected to fail"))
    return out


def expect(what, text, *needles, absent=()):
    for needle in needles:
        if needle not in text:
            print(text)
            raise Failed("%s: the output does not say %r" % (what, needle))
    for needle in absent:
        if needle in text:
            print(text)
            raise Failed("%s: the output says %r" % (what, needle))


def line_with(text, needle):
    return next((line.strip() for line in text.splitlines() if needle in line), "")


def fresh(path):
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)
    return path


def copy_host(source_dir, host, dest):
    """A clean copy of hosts/HOST, as a checkout has it (no build products)."""
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(Path(source_dir) / "hosts" / host, dest, ignore=BUILD_PRODUCTS)
    return dest


def libdir_of(prefix):
    """The install's library directory: PREFIX/lib, or PREFIX/lib/<triplet>
    when the build was configured so (Debian's package build)."""
    pcs = sorted(glob.glob(str(Path(prefix) / "lib*" / "**" / "pkgconfig" / "tsbridge.pc"),
                           recursive=True))
    if not pcs:
        raise Failed("no tsbridge.pc under %s" % prefix)
    return Path(pcs[0]).parent.parent.resolve()


def compile_env():
    """CC and CXX through ccache where the build compiles so (TSB_CCACHE, set
    by ctest with its CCACHE_ settings): setuptools compiles with them."""
    ccache = os.environ.get("TSB_CCACHE")
    if not ccache:
        return {}
    return {"CC": "%s %s" % (ccache, sysconfig.get_config_var("CC")),
            "CXX": "%s %s" % (ccache, sysconfig.get_config_var("CXX"))}


def pc_env(prefix, **extra):
    return env_with(PKG_CONFIG_PATH=libdir_of(prefix) / "pkgconfig", **extra)


def nothing_env(work, **extra):
    """pkg-config searching an empty directory: no tsbridge.pc, even one the
    system has."""
    empty = fresh(Path(work) / "empty-pkgconfig")
    return env_with(PKG_CONFIG_LIBDIR=empty, **extra)


def system_pc(work, prefix):
    """A tsbridge.pc whose libdir is a system library directory (headers
    from the prefix): what Debian's libtsbridge-dev gives, for the rpath rule."""
    multiarch = sysconfig.get_config_var("MULTIARCH") or "x86_64-linux-gnu"
    libdir = "/usr/lib/" + multiarch if os.path.isdir("/usr/lib/" + multiarch) else "/usr/lib"
    d = fresh(Path(work) / "system-pkgconfig")
    (d / "tsbridge.pc").write_text(
        "libdir=%s\nincludedir=%s/include\nName: tsbridge\nDescription: test\nVersion: 1.9.0\n"
        "Libs: -L${libdir} -ltsbridge\nCflags: -I${includedir}\n" % (libdir, prefix))
    return d, libdir


# ---------------------------------------------------------------- prefix

def prefix_step(cmake, build_dir, prefix):
    """Installs into STAGE/NAME for PREFIX = STAGE/NAME, through DESTDIR: a
    destination the build made absolute (the Python package's
    TSB_PYTHON_INSTALL_DIR in a package build) lands under STAGE too, never
    in the system."""
    prefix = Path(prefix)
    stage = prefix.parent
    shutil.rmtree(stage, ignore_errors=True)
    run("cmake --install", [cmake, "--install", build_dir, "--prefix", "/" + prefix.name],
        env_with(DESTDIR=stage))
    libdir = libdir_of(prefix)
    for f in [libdir / "libtsbridge.so", prefix / "include/tsbridge/tsbridge.h",
              prefix / "share/tsbridge/example_model.pt", libdir / "tsbridge/plugins/tuple.so"]:
        if not f.exists():
            raise Failed("the install has no %s" % f)


# ---------------------------------------------------------------- Python

PY_CHECK = r"""
import glob, os, sys
site, prefix, libdir = sys.argv[1], os.path.realpath(sys.argv[2]), sys.argv[3]
import torch, tsbridge
here = os.path.dirname(tsbridge.__file__)
assert here.startswith(site), here
assert not os.path.exists(os.path.join(here, "_lib")), "a copy of the library was installed"
m = tsbridge.load(os.path.join(prefix, "share/tsbridge/example_model.pt"))
scaled, combined = m.forward([(1.0, 2.0)], {0: "a"}, (torch.ones(2), torch.full((2,), 3.0)),
                             scale=2.0)
assert scaled == {"a": [2.0, 4.0]}, scaled
assert combined.tolist() == [5.0, 5.0], combined
maps = {l.split()[-1] for l in open("/proc/self/maps") if "libtsbridge.so" in l}
assert maps == {os.path.realpath(os.path.join(libdir, "libtsbridge.so"))}, maps
plugins = {os.path.dirname(p.path) for p in tsbridge.plugins()}
assert plugins == {os.path.join(libdir, "tsbridge/plugins")}, plugins
if glob.glob(os.path.join(here, "_torch*.so")):
    assert tsbridge.TORCH_FASTPATH, tsbridge.TORCH_FASTPATH_REASON
print("tsbridge", tsbridge.__version__, "from", here, "| library", maps.pop(),
      "| plugins", plugins.pop(), "| tensors:", tsbridge.TORCH_TENSOR_PATH)
"""


def cmake_version(source_dir):
    text = (Path(source_dir) / "CMakeLists.txt").read_text()
    return re.search(r"project\(tsbridge VERSION ([0-9.]+)", text).group(1)


def pip(*args):
    return [sys.executable, "-m", "pip", *args, "-v", "--no-build-isolation", "--no-index",
            "--no-deps", "--no-cache-dir", "--disable-pip-version-check"]


def python_step(source_dir, prefix, work):
    work = fresh(Path(work))
    prefix = Path(prefix).resolve()
    version = re.search(r'^version = "([^"]+)"',
                        (Path(source_dir) / "hosts/python/pyproject.toml").read_text(), re.M)
    if version.group(1) != cmake_version(source_dir):
        raise Failed("hosts/python/pyproject.toml's version %s is not the project's %s" % (
            version.group(1), cmake_version(source_dir)))
    src = copy_host(source_dir, "python", work / "python")
    # The wheel first, with dependency files (-MD), to see which headers the
    # build read; the install after it reuses the objects. Older setuptools
    # compile C++ with CFLAGS, newer ones (Debian 13's) with CXXFLAGS.
    out = run("pip wheel", pip("wheel", "-w", work / "wheels", src),
              pc_env(prefix, CFLAGS="-MD", CXXFLAGS="-MD", **compile_env()), cwd=work)
    expect("pip wheel", out, "tsbridge: libtsbridge %s found by pkg-config" % cmake_version(
        source_dir), "headers in %s/include" % prefix)
    print(line_with(out, "found by pkg-config"))
    print(line_with(out, "tsbridge._torch"))
    wheels = glob.glob(str(work / "wheels" / "tsbridge-*.whl"))
    if len(wheels) != 1:
        raise Failed("pip wheel made %s" % wheels)
    names = zipfile.ZipFile(wheels[0]).namelist()
    for wanted in ["tsbridge/__init__.py", "tsbridge/_errors.py", "tsbridge/_types.py",
                   "tsbridge/autograd.py"]:
        if wanted not in names:
            raise Failed("the wheel has no " + wanted)
    if not any(re.match(r"tsbridge/_native\..*\.so$", n) for n in names):
        raise Failed("the wheel has no tsbridge/_native extension: %s" % names)
    if any("libtsbridge" in n for n in names):
        raise Failed("the wheel carries a copy of libtsbridge: %s" % names)
    print("wheel:", os.path.basename(wheels[0]), sorted(n for n in names if n.endswith(".so")))
    # Every tsbridge header the extensions included came from the install.
    deps = glob.glob(str(src / "build" / "temp*" / "**" / "*.d"), recursive=True)
    if not deps:
        raise Failed("no dependency files under %s/build" % src)
    headers = set()
    for d in deps:
        for token in Path(d).read_text().replace("\\\n", " ").split():
            if "tsbridge/" in token and token.endswith((".h", ".hpp")):
                headers.add(os.path.realpath(token if os.path.isabs(token) else src / token))
    outside = sorted(h for h in headers
                     if not h.startswith(str(prefix / "include") + "/") and
                     not h.startswith(str(src.resolve()) + "/"))
    if outside or not any(h.endswith("/tsbridge/tsbridge.h") for h in headers):
        raise Failed("tsbridge headers from outside the install: %s" % (outside or "none read"))
    print("headers: %d tsbridge headers, all from %s/include" % (
        sum(1 for h in headers if h.startswith(str(prefix))), prefix))
    # pip install, with nothing but PKG_CONFIG_PATH.
    site = work / "site"
    out = run("pip install --target", pip("install", "--target", site, src),
              pc_env(prefix, **compile_env()), cwd=work)
    expect("pip install", out, "found by pkg-config")
    env = env_with(PYTHONPATH=site)
    print(run("import and call", [sys.executable, "-c", PY_CHECK, site, prefix,
                                  libdir_of(prefix)], env,
              cwd=work).strip())


def python_routes_step(source_dir, prefix, work):
    work = fresh(Path(work))
    src = copy_host(source_dir, "python", work / "python")
    out = run("pip wheel, no tsbridge.pc", pip("wheel", "-w", work / "wheels", src),
              nothing_env(work), cwd=work, expect_ok=False)
    expect("no tsbridge.pc", out, "tsbridge: pkg-config cannot find tsbridge",
           "apt-get install libtsbridge-dev", "PKG_CONFIG_PATH=PREFIX/lib/pkgconfig")
    out = run("pip wheel, no pkg-config program", pip("wheel", "-w", work / "wheels", src),
              env_with(PKG_CONFIG=work / "no-such-pkg-config"), cwd=work, expect_ok=False)
    expect("no pkg-config", out, "no pkg-config program", "libtsbridge-dev")
    print("both refused with the message")
    # setup.py's own rules, without a compile: a system libdir gets no RPATH,
    # and the companion is skipped, saying why, when Abseil's .pc files are
    # not found (pkg-config here sees one tsbridge.pc only).
    pcdir, libdir = system_pc(work, Path(prefix).resolve())
    out = run("setup.py's rules", [sys.executable, "-c", PY_RULES, src / "setup.py", libdir],
              env_with(PKG_CONFIG_LIBDIR=pcdir), cwd=work)
    expect("setup.py's rules", out, "library in %s (a system directory: no RPATH)" % libdir,
           "companion skipped: pkg-config finds no absl_status")
    print(out.strip())


PY_RULES = r"""
import importlib.util, sys
spec = importlib.util.spec_from_file_location("tsb_setup", sys.argv[1])
setup = importlib.util.module_from_spec(spec)
spec.loader.exec_module(setup)
for d, system in [("/usr/lib", True), ("/usr/lib/x86_64-linux-gnu", True), ("/lib64", True),
                  ("/usr/local/lib", False), ("/opt/tsbridge/lib", False),
                  ("/usr/lib/x86_64-linux-gnu/tsbridge", False)]:
    assert setup.system_libdir(d) == system, d
found = setup.find_tsbridge()
assert found["rpath"] == [], found
torch, why = setup.find_torch_companion()
assert torch is None
print("companion skipped:", why)
"""


# ---------------------------------------------------------------- R

R_CHECK = r"""
args <- commandArgs(TRUE)
prefix <- normalizePath(args[1])
libdir <- args[2]
library(tsbridge)
m <- tsb_load(file.path(prefix, "share/tsbridge/example_model.pt"))
out <- m$forward(list(list(1, 2)), tsb_dict(0L, "a"),
                 list(tsb_tensor(c(1, 1)), tsb_tensor(c(3, 3))), scale = 2)
stopifnot(identical(out[[1]], list(a = c(2, 4))))
stopifnot(identical(as.double(out[[2]]), c(5, 5)))
maps <- unique(grep("libtsbridge.so", readLines("/proc/self/maps"), value = TRUE, fixed = TRUE))
lib <- unique(sub(".* ", "", maps))
stopifnot(identical(lib, normalizePath(file.path(libdir, "libtsbridge.so"))))
dirs <- unique(dirname(vapply(tsb_plugins(), function(p) p$path, "")))
stopifnot(identical(dirs, file.path(libdir, "tsbridge/plugins")))
cat("tsbridge", format(packageVersion("tsbridge")), "| library", lib, "| plugins", dirs, "\n")
"""


def r_step(source_dir, prefix, work, r, rscript):
    work = fresh(Path(work))
    prefix = Path(prefix).resolve()
    pkg = copy_host(source_dir, "r", work / "tsbridge")
    lib = fresh(work / "lib")
    out = run("R CMD INSTALL", [r, "CMD", "INSTALL", "--no-docs", "--no-multiarch", "-l", lib, pkg],
              pc_env(prefix), cwd=work)
    expect("R CMD INSTALL", out, "tsbridge: libtsbridge", "found by pkg-config",
           "library in %s (RPATH %s)" % (libdir_of(prefix), libdir_of(prefix)))
    print(line_with(out, "found by pkg-config"))
    script = work / "check.R"
    script.write_text(R_CHECK)
    print(run("library(tsbridge) and a call", [rscript, script, prefix, libdir_of(prefix)],
              env_with(R_LIBS=lib),
              cwd=work).strip())


def configure(work, source_dir, name, env, expect_ok=True):
    pkg = copy_host(source_dir, "r", Path(work) / name)
    out = run("configure: " + name, ["sh", "./configure"], env, cwd=pkg, expect_ok=expect_ok)
    makevars = (pkg / "src" / "Makevars")
    return out, makevars.read_text() if makevars.exists() else None


def r_routes_step(source_dir, prefix, work, build_dir):
    work = fresh(Path(work))
    prefix = Path(prefix).resolve()
    inc, lib = prefix / "include", libdir_of(prefix)
    # No variable: pkg-config.
    out, mk = configure(work, source_dir, "pkg-config", pc_env(prefix))
    expect("pkg-config", out, "found by pkg-config")
    expect("pkg-config's Makevars", mk, "-ltsbridge", "-Wl,-rpath,%s" % lib)
    # A variable set wins over pkg-config.
    out, mk = configure(work, source_dir, "TSB_HOME-and-pkg-config",
                        pc_env(prefix, TSB_HOME=prefix))
    expect("TSB_HOME over pkg-config", out, "found by TSB_HOME=%s" % prefix)
    expect("TSB_HOME's Makevars", mk, "-I%s" % inc, "-L%s -ltsbridge" % lib)
    # No tsbridge.pc: each variable.
    for name, extra, said in [
            ("TSB_HOME", {"TSB_HOME": prefix}, "found by TSB_HOME="),
            ("TSB_INCLUDE_DIR", {"TSB_INCLUDE_DIR": inc, "TSB_LIB_DIR": lib},
             "found by TSB_INCLUDE_DIR/TSB_LIB_DIR"),
            ("INCLUDE_DIR", {"INCLUDE_DIR": inc, "LIB_DIR": lib}, "found by INCLUDE_DIR/LIB_DIR"),
            ("TSB_BUILD_DIR", {"TSB_BUILD_DIR": build_dir}, "found by TSB_BUILD_DIR=")]:
        out, mk = configure(work, source_dir, name, nothing_env(work, **extra))
        expect(name, out, said)
        print(line_with(out, said))
    # A system library directory: no RPATH.
    pcdir, libdir = system_pc(work, prefix)
    out, mk = configure(work, source_dir, "system-libdir", env_with(PKG_CONFIG_PATH=pcdir))
    expect("system libdir", out, "library in %s (a system directory: no RPATH)" % libdir)
    expect("system libdir's Makevars", mk, "-ltsbridge", absent=["-rpath"])
    # Nothing: the message, and no Makevars.
    for name, env in [("nothing", nothing_env(work)),
                      ("no-pkg-config", env_with(PKG_CONFIG=work / "no-such-pkg-config")),
                      ("TSB_HOME-wrong", pc_env(prefix, TSB_HOME=work / "nowhere"))]:
        out, mk = configure(work, source_dir, name, env, expect_ok=False)
        expect(name, out, "apt-get install libtsbridge-dev", "PKG_CONFIG_PATH=PREFIX/lib/pkgconfig",
               "TSB_HOME", "TSB_BUILD_DIR", "INCLUDE_DIR=... LIB_DIR=...")
        if mk is not None:
            raise Failed(name + ": configure failed but wrote src/Makevars")
        print(name + ":", line_with(out, "tsbridge: "))


# ---------------------------------------------------------------- Rust

def rust_checkout(source_dir, work):
    """hosts/rust and the bench its Cargo.toml names, as in a checkout."""
    root = Path(work) / "checkout"
    copy_host(source_dir, "rust", root / "hosts" / "rust")
    (root / "bench").mkdir(parents=True, exist_ok=True)
    shutil.copy(Path(source_dir) / "bench" / "rust_host_bench.rs", root / "bench")
    return root


def cargo(cargo_program, *args):
    return [cargo_program, *args, "--offline", "-vv"]


def rust_step(source_dir, prefix, work, cargo_program, rustc):
    work = fresh(Path(work))
    prefix = Path(prefix).resolve()
    crate = rust_checkout(source_dir, work) / "hosts" / "rust"
    env = pc_env(prefix, RUSTC=rustc, CARGO_TARGET_DIR=work / "target")
    out = run("cargo build", cargo(cargo_program, "build"), env, cwd=crate)
    expect("cargo build", out, "tsbridge: libtsbridge", "found by pkg-config",
           "library in %s (rpath %s)" % (libdir_of(prefix), libdir_of(prefix)))
    print(line_with(out, "found by pkg-config"))
    out = run("cargo run --example example_model",
              [cargo_program, "run", "--offline", "--example", "example_model", "--",
               prefix / "share/tsbridge/example_model.pt"], env, cwd=crate)
    expect("example_model", out, 'scaled: Dict([(Str("a"), List([Float(2.0), Float(4.0)]))])',
           "combined: [5.0, 5.0]", "bundled plugins: %s/tsbridge/plugins" % libdir_of(prefix),
           "plugin tuple: %s/tsbridge/plugins/tuple.so" % libdir_of(prefix))
    print(line_with(out, "combined:"), "|", line_with(out, "bundled plugins:"))
    # A program depending on the crate, adding the rpath as docs/install.md says.
    app = work / "app"
    (app / "src").mkdir(parents=True)
    (app / "Cargo.toml").write_text(APP_TOML % crate)
    (app / "build.rs").write_text(APP_BUILD_RS)
    (app / "src" / "main.rs").write_text(APP_MAIN_RS)
    out = run("cargo run of a program depending on the crate",
              [cargo_program, "run", "--offline"], env, cwd=app)
    expect("the dependent program", out, "twice(21) = 42")
    print(line_with(out, "twice(21)"))


APP_TOML = """[package]
name = "uses_tsbridge"
version = "0.1.0"
edition = "2021"

[dependencies]
tsbridge = { path = "%s" }
"""
APP_BUILD_RS = """fn main() {
    if let Ok(dir) = std::env::var("DEP_TSBRIDGE_RPATH") {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{}", dir);
    }
}
"""
APP_MAIN_RS = """fn main() {
    let m = tsbridge::Module::compile("def twice(self, x: int) -> int:\\n    return x * 2\\n")
        .expect("compile");
    let y = m.call("twice", &[21i64.into()]).expect("call").get::<i64>().expect("int");
    println!("twice(21) = {}", y);
}
"""


def rust_routes_step(source_dir, prefix, work, cargo_program, rustc):
    work = fresh(Path(work))
    prefix = Path(prefix).resolve()
    root = rust_checkout(source_dir, work)
    crate = root / "hosts" / "rust"
    base = dict(RUSTC=rustc, CARGO_TARGET_DIR=work / "target")

    def check(name, env, expect_ok=True):
        # cargo check runs the build script without linking anything.
        return run("cargo check: " + name, cargo(cargo_program, "check"), env, cwd=crate,
                   expect_ok=expect_ok)

    out = check("TSBRIDGE_LIB_DIR-and-pkg-config",
                pc_env(prefix, TSBRIDGE_LIB_DIR=libdir_of(prefix), **base))
    expect("TSBRIDGE_LIB_DIR over pkg-config", out, "found by TSBRIDGE_LIB_DIR")
    print(line_with(out, "tsbridge: libtsbridge"))
    # No tsbridge.pc, no variable: the repository's build (here, a link to
    # the install's lib/ standing for checkout/build/lib), then nothing.
    (root / "build").mkdir()
    os.symlink(libdir_of(prefix), root / "build" / "lib")
    out = check("repository build", nothing_env(work, **base))
    expect("repository build", out, "found by the repository's build")
    print(line_with(out, "tsbridge: libtsbridge"))
    os.unlink(root / "build" / "lib")
    out = check("nothing", nothing_env(work, **base), expect_ok=False)
    expect("nothing", out, "pkg-config finds no tsbridge", "apt-get install libtsbridge-dev",
           "PKG_CONFIG_PATH=PREFIX/lib/pkgconfig", "TSBRIDGE_LIB_DIR")
    print("nothing:", line_with(out, "tsbridge: pkg-config"))
    out = check("no pkg-config", env_with(PKG_CONFIG=work / "no-such-pkg-config", **base),
                expect_ok=False)
    expect("no pkg-config", out, "no pkg-config program", "libtsbridge-dev")
    # A system library directory: no rpath.
    pcdir, libdir = system_pc(work, prefix)
    out = check("system libdir", env_with(PKG_CONFIG_PATH=pcdir, **base))
    expect("system libdir", out, "library in %s (a system directory: no rpath)" % libdir,
           absent=["-Wl,-rpath"])
    print(line_with(out, "tsbridge: libtsbridge"))


STEPS = {
    "prefix": prefix_step, "python": python_step, "python-routes": python_routes_step,
    "r": r_step, "r-routes": r_routes_step, "rust": rust_step, "rust-routes": rust_routes_step,
}

if __name__ == "__main__":
    try:
        STEPS[sys.argv[1]](*sys.argv[2:])
    except Failed as e:
        print("FAILED:", e)
        sys.exit(1)
