"""The same bad input gives the same message in every host: the C ABI called
from C, the tsb command, Python and R (docs/abi.md, "Paths and messages").
The callee, the path and what was expected are the same text everywhere;
what was found is said in each host's own terms (a JSON string, a Python
str, an R character vector), and each host's is checked too.

Then the same call of an operator or a method gives the same result, or the
same whole message, from every host: each types its arguments by the
callee's call plan (tsbridge/host/call_plan.hpp, docs/hosts.md), so an int
where a schema says int[2] and an overloaded operator's arguments are built
alike; results are checked against PyTorch's.

    same_message_test.py TSB C_HOST WORK_DIR   (PYTHONPATH and R_LIBS set)
"""
import json
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


# The same call from every host: (callee, JSON args, JSON kwargs, Python
# arguments, R arguments, what PyTorch gives, or "error: " and what the
# message says), x a 4x4 image; callees without "::" are the module's
# methods. Hosts that type arguments apart would differ here: an int for
# int[2] (one overload, two), an overloaded operator's Tensor and Scalar
# overloads, a keyword all overloads type alike, values no overload takes.
# (A method's int[2], BroadcastingList2[int], is List[int] once saved:
# tests/sdk/call_plan_test.cc has one, compiled.)
X = ('{"dtype": "float32", "shape": [1, 1, 4, 4], "data": '
     '[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]}')
CALLS = [
    ("aten::max_pool2d", f"[{X}, 2]", "{}", "x, 2", "x, 2",
     "torch.max_pool2d(x, 2)"),
    ("aten::max_pool2d", f"[{X}]", '{"kernel_size": 3, "stride": 1}',
     "x, kernel_size=3, stride=1", "x, kernel_size = 3, stride = 1",
     "torch.max_pool2d(x, kernel_size=3, stride=1)"),
    ("aten::adaptive_avg_pool2d", f"[{X}, 3]", "{}", "x, 3", "x, 3",
     "torch.nn.functional.adaptive_avg_pool2d(x, 3)"),
    ("aten::add", f"[{X}, {X}]", "{}", "x, x", "x, x", "torch.add(x, x)"),
    ("aten::add", f"[{X}, 2]", '{"alpha": 3}', "x, 2, alpha=3", "x, 2, alpha = 3",
     "torch.add(x, 2, alpha=3)"),
    ("aten::add", "[1, 2]", "{}", "1, 2", "1L, 2L", "3"),
    ("one", "[]", '{"x": 4}', "x=4", "x = 4", "4"),
    ("aten::add", f'[{X}, "s"]', "{}", 'x, "s"', 'x, "s"',
     "error: no overload of aten::add accepts (Tensor, str); the overloads:\n"),
    ("aten::add", '[1, "s"]', "{}", '1, "s"', '1L, "s"',
     "error: no overload of aten::add accepts (int, str); the overloads:\n"),
    ("aten::add", f"[{X}, {X}]", '{"alpha": "a"}', 'x, x, alpha="a"', 'x, x, alpha = "a"',
     "error: [argument 'alpha': expected number, got str \"a\"]"),
    ("aten::max_pool2d", f"[{X}, 2.5]", "{}", "x, 2.5", "x, 2.5",
     "error: [argument 'kernel_size': expected List[int], got float 2.5]"),
]
END = "<<end of call>>"


def run(args, **kwargs):
    return subprocess.run(args, capture_output=True, text=True, check=False, **kwargs)


def same_calls(module):
    """Each CALLS entry from every host: 0 when all agree with PyTorch."""
    found = {"tsb": [], "C": [], "Python": [], "R": []}
    for callee, args, kwargs, _, _, _ in CALLS:
        cli = run([TSB, "call", callee, "--args", args, "--kwargs", kwargs] if "::" in callee
                  else [TSB, "run", module, callee, "--args", args, "--kwargs", kwargs])
        found["tsb"].append(cli.stdout.strip() if cli.returncode == 0
                            else cli.stderr.strip().removeprefix("tsb: "))
        if X not in args:  # the C host reads its arguments untyped: no tensors
            c = run([C_HOST, "-" if "::" in callee else module, callee, args, kwargs])
            found["C"].append(c.stdout.strip())
        else:
            found["C"].append(None)

    def callee_py(callee):
        return f"tsbridge.ops.{callee.replace('::', '.')}" if "::" in callee else f"m.{callee}"
    py = "\n".join(["import tsbridge", f"m = tsbridge.load({module!r})",
                    f"x = tsbridge.from_json({X!r}, 'Tensor')"] + [
        f"try:\n    print(tsbridge.to_json({callee_py(c)}({a}), 'Any'))\n"
        f"except tsbridge.Error as e:\n    print(str(e))\nprint({END!r})"
        for c, _, _, a, _, _ in CALLS])
    out = run([sys.executable, "-c", py])
    assert out.returncode == 0, out.stderr
    found["Python"] = [r.strip() for r in out.stdout.split(END + "\n")[:-1]]

    def callee_r(callee):
        return f"tsb_ops${callee.replace('::', '$')}" if "::" in callee else f"m${callee}"
    r = "\n".join(["suppressPackageStartupMessages(library(tsbridge))",
                   f"m <- tsb_load({module!r})", f"x <- tsb_from_json('{X}', 'Tensor')"] + [
        f"cat(tryCatch(tsb_to_json({callee_r(c)}({a})), error = conditionMessage), "
        f"'\\n{END}\\n', sep = '')"
        for c, _, _, _, a, _ in CALLS])
    out = run([os.environ.get("TSB_RSCRIPT", "Rscript"), "-e", r])
    assert out.returncode == 0, out.stderr
    found["R"] = [r.strip() for r in out.stdout.split(END + "\n")[:-1]]

    import torch  # PyTorch's own result for each call that has one
    x = torch.arange(16, dtype=torch.float32).reshape(1, 1, 4, 4)
    failures = 0
    for i, (callee, _, _, call, _, reference) in enumerate(CALLS):
        hosts = {h: found[h][i] if i < len(found[h]) else "(nothing)" for h in found
                 if i >= len(found[h]) or found[h][i] is not None}
        if len(set(hosts.values())) != 1:
            failures += 1
            print(f"FAIL {callee}({call}): the hosts differ:\n" +
                  "\n".join(f"  {h}: {v}" for h, v in hosts.items()))
            continue
        got = hosts["Python"]
        if reference.startswith("error: "):
            if reference.removeprefix("error: ") not in got:
                failures += 1
                print(f"FAIL {callee}({call}): expected {reference}, got {got}")
            continue
        want = eval(reference, {"torch": torch, "x": x})  # noqa: S307 (the table above)
        value = json.loads(got)
        if isinstance(want, torch.Tensor):
            value = torch.tensor(value["data"], dtype=want.dtype).reshape(value["shape"])
            same = value.shape == want.shape and torch.equal(value, want)
        else:
            same = value == want
        if not same:
            failures += 1
            print(f"FAIL {callee}({call}): PyTorch gives {want}, the hosts {got}")
    print(f"{len(CALLS)} calls, 4 hosts: {failures} differ")
    return failures


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
    failures += same_calls(module)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
