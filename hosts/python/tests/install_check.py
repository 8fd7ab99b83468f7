"""The package installs without network and works from where it landed:
pip installs build/python into a fresh target directory (no index, no build
isolation), then a new interpreter that only sees that directory imports
tsbridge, checks that its library and plugins are the installed copies, and
runs a compiled module.

Usage: install_check.py PACKAGE_DIR WORK_DIR
"""
import os
import shutil
import subprocess
import sys
from pathlib import Path

CHECK = """
import os, sys, tsbridge
here = os.path.dirname(tsbridge.__file__)
assert here.startswith(sys.argv[1]), here
m = tsbridge.compile('def f(self, x: List[int]) -> Tuple[int, str]:\\n    return sum(x), "ok"\\n')
assert m.f([1, 2, 3]) == (6, 'ok')
# The Tuple above loaded the bundled tuple plugin, from the package's copy.
plugin_dirs = {os.path.dirname(p.path) for p in tsbridge.plugins()}
assert plugin_dirs == {os.path.join(here, '_lib', 'tsbridge', 'plugins')}, plugin_dirs
import glob
if glob.glob(os.path.join(sys.argv[2], 'tsbridge', '_torch*.so')):  # built: installed too
    assert glob.glob(os.path.join(here, '_torch*.so')), 'the torch fast path was not installed'
    assert tsbridge.TORCH_FASTPATH, tsbridge.TORCH_FASTPATH_REASON
print('installed tsbridge', tsbridge.__version__, 'works')
"""


def main(package_dir, work):
    work = Path(work)
    shutil.rmtree(work, ignore_errors=True)
    target = work / "site"
    pip = [sys.executable, "-m", "pip", "install", "--no-build-isolation", "--no-index",
           "--no-cache-dir", "--disable-pip-version-check", "--quiet",
           "--target", str(target), str(package_dir)]
    # A copy of the package directory: pip's build writes into the source.
    source = work / "src"
    shutil.copytree(package_dir, source, ignore=shutil.ignore_patterns(
        "build", "*.egg-info", "__pycache__"))
    pip[-1] = str(source)
    run = subprocess.run(pip, capture_output=True, text=True)
    if run.returncode != 0:
        print(run.stdout, run.stderr)
        return 1
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(target)
    run = subprocess.run([sys.executable, "-c", CHECK, str(target), str(package_dir)], env=env,
                         capture_output=True, text=True, cwd=str(work))
    print(run.stdout, run.stderr)
    return run.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
