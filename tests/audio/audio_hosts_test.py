"""torchaudio's operator library by name, from tsb, Python, R and C (Rust:
hosts/rust/tests/audio.rs), each in a process that never imports
torchaudio: the module calling torchaudio::_lfilter is refused first with
the advice in that host's words, then runs after the host's own call loaded
the library by name, and its result equals PyTorch's (make_audio_models.py).

Usage: audio_hosts_test.py --models DIR --tsb TSB --c TSB_AUDIO_C
       --python-dir DIR [--rscript RSCRIPT --r-lib DIR --r-script audio.R]
"""
import argparse
import json
import os
import subprocess
import sys

PYTHON_HOST = """
import json, sys, tsbridge
models = sys.argv[1]
try:
    tsbridge.load(models + "/lfilter.pt")
except tsbridge.Error as e:
    print(e)
library = tsbridge.load_library("torchaudio")
print(library.name, library.path, "torchaudio::_lfilter" in library.operators)
args = [tsbridge.from_json(json.dumps(a), "Tensor") for a in json.load(open(models + "/args.json"))]
print(tsbridge.to_json(tsbridge.load(models + "/lfilter.pt")(*args), "Tensor"))
"""

# The advice each host gives, in its own words.
ADVICE = {
    "tsb": "(tsb --library torchaudio)",
    "python": '(tsbridge.load_library("torchaudio"))',
    "r": '(tsb_load_library("torchaudio"))',
    "c": '(tsb_library_load("torchaudio", NULL))',
}


def close(got, want):
    return (got["shape"] == want["shape"] and
            all(abs(a - b) <= 1e-5 + 1e-5 * abs(b) for a, b in zip(got["data"], want["data"])))


def check(host, lines, expected, failures):
    """lines: the refusal, the library (name path ...), the result JSON."""
    if len(lines) < 3:
        failures.append(f"{host}: expected 3 lines, got {lines}")
        return
    refusal, library, result = lines[0], lines[1], lines[-1]
    if "calls the operator torchaudio::_lfilter" not in refusal or ADVICE[host] not in refusal:
        failures.append(f"{host}: the refusal does not advise {ADVICE[host]}: {refusal}")
    for other, advice in ADVICE.items():
        if other != host and advice in refusal:
            failures.append(f"{host}: the refusal gives {other}'s advice: {refusal}")
    if not library.startswith("torchaudio ") or "/torchaudio/lib/libtorchaudio" not in library:
        failures.append(f"{host}: not torchaudio's library by name: {library}")
    if not close(json.loads(result), expected):
        failures.append(f"{host}: the result differs from PyTorch's: {result[:200]}")


def run(command, env=None):
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        return [f"exit {done.returncode}: {done.stderr.strip()}"]
    return done.stdout.strip().splitlines()


def main():
    parser = argparse.ArgumentParser()
    for option in ("--models", "--tsb", "--c", "--python-dir", "--rscript", "--r-lib",
                   "--r-script"):
        parser.add_argument(option, default="")
    a = parser.parse_args()
    expected = json.load(open(os.path.join(a.models, "expected.json")))
    module = os.path.join(a.models, "lfilter.pt")
    failures = []

    refusal = subprocess.run([a.tsb, "run", module], capture_output=True, text=True).stderr
    library = run([a.tsb, "--library", "torchaudio", "plugins"])
    result = run([a.tsb, "--library", "torchaudio", "run", module,
                  "--args", "@" + os.path.join(a.models, "args.json")])
    library_line = next((l[len("library "):] for l in library if l.startswith("library ")), "")
    check("tsb", [refusal.strip(), library_line, *result], expected, failures)

    env = dict(os.environ, PYTHONPATH=a.python_dir)
    check("python", run([sys.executable, "-c", PYTHON_HOST, a.models], env), expected, failures)
    check("c", run([a.c, a.models]), expected, failures)
    if a.rscript:
        env = dict(os.environ, R_LIBS=a.r_lib)
        check("r", run([a.rscript, a.r_script, a.models], env), expected, failures)
    else:
        print("R is not installed: the R host is not checked")

    for failure in failures:
        print("FAILED", failure)
    print("passed" if not failures else f"{len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
