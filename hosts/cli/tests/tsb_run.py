"""The tsb command line run by the CLI's Python tests: run(tsb, *args)
gives its output (stdout then stderr) and exits the test, saying why, when
tsb failed where it should succeed (ok=True) or succeeded where it should
fail (ok=False)."""
import subprocess
import sys


def run(tsb, *args, ok=True):
    p = subprocess.run([tsb, *map(str, args)], capture_output=True, text=True)
    if ok and p.returncode != 0:
        sys.exit(f"tsb {' '.join(map(str, args))} failed: {p.stderr}")
    if not ok and p.returncode == 0:
        sys.exit(f"tsb {' '.join(map(str, args))} should have failed: {p.stdout}")
    return p.stdout + p.stderr
