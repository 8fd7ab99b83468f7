"""The same bad input gives the same message in every host: the C ABI called
from C, the tsb command, Python and R (docs/abi.md, "Paths and messages").
The callee, the path and what was expected are the same text everywhere;
what was found is said in each host's own terms (a JSON string, a Python
str, an R character vector), and each host's is checked too.

    same_message_test.py TSB C_HOST WORK_DIR   (PYTHONPATH and R_LIBS set)
"""
import os
import subprocess
import sys

TSB, C_HOST, WORK = sys.argv[1:4]

SOURCE = """
def points(self, xs: List[Tuple[float, str]]) -> int:
    return len(xs)

def counts(self, d: Dict[str, List[int]]) -> int:
    return len(d)

def one(self, x: int) -> int:
    return x
"""

# (method, JSON args for C and tsb, Python call, R call, the shared text up
# to "got ", then what each host found: C, tsb, Python, R).
CASES = [
    ("points", '[[[1.0, "a"], [2.0, 3]]]', 'm.points([(1.0, "a"), (2.0, 3)])',
     'm$points(list(tsb_tuple(1, "a"), tsb_tuple(2, 3L)))',
     "points(): argument 'xs' \u2192 [1] \u2192 [1]: expected str, got ",
     ("int 3", "JSON number 3", "int 3", "integer 3")),
    ("counts", '[{"a": [1, "x"]}]', 'm.counts({"a": [1, "x"]})',
     'm$counts(list(a = list(1L, "x")))',
     "counts(): argument 'd' \u2192 key \"a\" \u2192 [1]: expected int, got ",
     ('str "x"', 'JSON string "x"', 'str "x"', 'character "x"')),
    ("one", '["s"]', 'm.one("s")', 'm$one("s")',
     "one(): argument 'x': expected int, got ",
     ('str "s"', 'JSON string "s"', 'str "s"', 'character "s"')),
    ("one", "[2.5]", "m.one(2.5)", "m$one(2.5)",
     "one(): argument 'x': expected int, got ",
     ("float 2.5", "JSON number 2.5", "float 2.5",
      "double 2.5 (not a whole number in the int64 range)")),
]


def run(args, **kwargs):
    return subprocess.run(args, capture_output=True, text=True, check=False, **kwargs)


def main():
    os.makedirs(WORK, exist_ok=True)
    source = os.path.join(WORK, "messages.torchscript")
    module = os.path.join(WORK, "messages.pt")
    with open(source, "w") as f:
        f.write(SOURCE)
    compiled = run([TSB, "compile", source, "-o", module])
    assert compiled.returncode == 0, compiled.stderr

    found = {"C": [], "tsb": [], "Python": [], "R": []}
    for method, args, _, _, _, _ in CASES:
        c = run([C_HOST, module, method, args])
        found["C"].append(c.stdout.strip())
        cli = run([TSB, "run", module, method, "--args", args])
        found["tsb"].append(cli.stderr.strip().removeprefix("tsb: "))

    py = "\n".join(["import tsbridge", f"m = tsbridge.load({module!r})"] + [
        f"try:\n    {call}\nexcept tsbridge.Error as e:\n    print(str(e))"
        for _, _, call, _, _, _ in CASES])
    out = run([sys.executable, "-c", py])
    assert out.returncode == 0, out.stderr
    found["Python"] = out.stdout.strip().split("\n")

    r = "\n".join(["suppressPackageStartupMessages(library(tsbridge))",
                   f"m <- tsb_load({module!r})"] + [
        f"cat(conditionMessage(tryCatch({call}, error = function(e) e)), '\\n', sep = '')"
        for _, _, _, call, _, _ in CASES])
    out = run([os.environ.get("TSB_RSCRIPT", "Rscript"), "-e", r])
    assert out.returncode == 0, out.stderr
    found["R"] = out.stdout.strip().split("\n")

    failures = 0
    for i, (method, _, _, _, shared, theirs) in enumerate(CASES):
        for host, what in zip(("C", "tsb", "Python", "R"), theirs):
            got = found[host][i] if i < len(found[host]) else "(no message)"
            want = shared + what
            if got != want:
                failures += 1
                print(f"FAIL {host}, case {i} ({method}):\n  got  {got}\n  want {want}")
    print(f"{len(CASES)} bad inputs, 4 hosts: {failures} messages differ")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
