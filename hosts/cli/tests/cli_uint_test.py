"""tsb and an int above INT64_MAX (ABI 1.6): a JSON number in (INT64_MAX,
UINT64_MAX] crosses an `int` parameter and comes back as the same number,
alone, in List[int] and in Dict[str, int], with LibTorch 2.9 and newer;
before, tsb fails saying which LibTorch it needs. The module is compiled
by `tsb compile` (LibTorch's C++ TorchScript compiler).

Usage: cli_uint_test.py TSB WORK_DIR LIBTORCH_VERSION
"""
import functools
import json
import pathlib
import sys

from tsb_run import run as run_tsb

tsb, work, version = sys.argv[1], pathlib.Path(sys.argv[2]), sys.argv[3]
work.mkdir(parents=True, exist_ok=True)
uint = tuple(int(p) for p in version.split(".")[:2]) >= (2, 9)
run = functools.partial(run_tsb, tsb)
failures = []


source = work / "uint.ts"
source.write_text(
    "def ident(self, x: int) -> int:\n    return x\n"
    "def ints(self, xs: List[int]) -> List[int]:\n    return xs\n"
    "def table(self, d: Dict[str, int]) -> Dict[str, int]:\n    return d\n")
module = work / "uint.pt"
run("compile", source, "-o", module)

for big in (2**63, 2**64 - 1):
    cases = [("ident", big), ("ints", [1, big, -1]), ("table", {"a": big, "b": 2})]
    for method, arg in cases:
        text = json.dumps([arg])
        if not uint:
            err = run("run", module, method, "--args", text, ok=False)
            if "which needs LibTorch 2.9 or newer (an int above INT64_MAX" not in err:
                failures.append(f"{method} {text}: {err}")
            continue
        out = run("run", module, method, "--args", text)
        if json.loads(out) != arg:  # Python's json keeps big ints exact: no wrap passes
            failures.append(f"{method} {text} gave {out}")

# Past UINT64_MAX there is no int: refused on every release.
err = run("run", module, "ident", "--args", json.dumps([2**64]), ok=False)
if "expected int, got JSON number" not in err:
    failures.append(f"2**64: {err}")

if failures:
    sys.exit("\n".join(failures))
print("uint through tsb:", "round trips" if uint else "refused as expected", "on LibTorch", version)
