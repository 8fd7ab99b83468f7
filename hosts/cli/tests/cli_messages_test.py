"""Every refusal of tsb says its message once (docs/cli.md, "Errors"): one
line on standard error, `tsb: ` then the message, with no part of it said
twice (`cannot load module X: cannot load module "X": ...` was), and the
advice for a missing operator library in tsb's own words (`tsb --library`).

Usage: cli_messages_test.py TSB EXAMPLE_MODEL OPLIB_FIXTURE WORK_DIR
"""
import json
import os
import re
import subprocess
import sys
from pathlib import Path


def repeated(message):
    """The first run of three words the message says twice, or None. Only
    its first line is read: a TorchScript traceback or an overload list
    after it quotes code, which may repeat itself."""
    words = re.findall(r"[\w:.'\"/-]+", message.splitlines()[0].lower())
    words = [w.strip("'\"") for w in words if w.strip("'\"")]
    seen = set()
    for i in range(len(words) - 2):
        run = tuple(words[i:i + 3])
        if run in seen:
            return " ".join(run)
        seen.add(run)
    return None


def restarted(message):
    """A clause (after ": ") that begins as an earlier one began, by its first
    two words (`cannot compile m.ts: cannot compile the source`), or None."""
    starts = set()
    for clause in message.splitlines()[0].split(": "):
        start = tuple(clause.lower().split()[:2])
        if len(start) == 2 and start in starts:
            return " ".join(start)
        starts.add(start)
    return None


def main(tsb, model, oplib, work):
    work = Path(work)
    work.mkdir(parents=True, exist_ok=True)
    (work / "twice.torchscript").write_text(
        "def forward(self, x: Tensor) -> Tensor:\n    return ops.tsbfixture.twice(x)\n")
    (work / "broken.torchscript").write_text("def forward(self, x: int) -> int:\n    return x +\n")
    (work / "notes.txt").write_text("not a module\n")
    (work / "args.json").write_text("[1,")
    twice = work / "twice.pt"
    subprocess.run([tsb, "--library", oplib, "compile", work / "twice.torchscript", "-o", twice],
                   check=True)
    env = dict(os.environ, TSB_LIBRARY_SEARCH_PATH=str(work / "empty"))

    # (what, exit code, arguments, a part the message must have)
    refusals = [
        ("bad --args JSON", 2, ["run", model, "--args", "[1,"], "--args is not valid JSON"),
        ("--args not an array", 2, ["run", model, "--args", "{}"], "must be a JSON array"),
        ("bad --kwargs JSON", 2, ["run", model, "--kwargs", "{"], "--kwargs is not valid JSON"),
        ("bad JSON in @FILE", 2, ["run", model, "--args", f"@{work / 'args.json'}"],
         "is not valid JSON"),
        ("missing @FILE", 2, ["run", model, "--args", f"@{work / 'none.json'}"], "none.json"),
        ("missing module file", 1, ["run", work / "none.pt"], "none.pt"),
        ("not a module", 1, ["run", work / "notes.txt"], 'cannot load module "'),
        ("unknown method", 1, ["run", model, "nope"], "no method 'nope'"),
        ("bad type", 1, ["run", model, "--args", '[[[1, "y"]]]'], "expected float"),
        ("missing argument", 1, ["run", model, "--args", "[[[1, 2]]]"], "labels"),
        ("too many arguments", 1, ["run", model, "describe", "--args", "[1]"],
         "positional arguments"),
        ("unknown keyword", 1, ["run", model, "--kwargs", '{"nope": 1}'], "nope"),
        ("missing library, module", 1, ["run", twice, "--args", "[1]"],
         "calls the operator tsbfixture::twice"),
        ("missing library, compile", 1,
         ["compile", work / "twice.torchscript", "-o", work / "x.pt"],
         "calls the operator tsbfixture::twice"),
        ("missing library, operator", 1, ["call", "torchvision::nms"],
         "(tsb --library torchvision)"),
        ("compile error", 1, ["compile", work / "broken.torchscript", "-o", work / "b.pt"],
         "cannot compile"),
        ("unknown operator", 1, ["call", "aten::nope"], "aten::nope"),
        ("no overload", 1, ["call", "aten::add", "--args", '[1, "x"]'], "aten::add"),
        ("unknown library name", 1, ["--library", "nolib", "plugins"], "nolib"),
        ("library not a file", 1, ["--library", work / "none.so", "plugins"], "none.so"),
        ("missing plugin", 1, ["--plugin", work / "none.so", "plugins"], "none.so"),
        ("empty namespace", 1, ["ops", "nope"], "namespace 'nope'"),
        ("inspect a missing module", 1, ["inspect", work / "none.pt"], "none.pt"),
        ("inspect a missing plugin", 1, ["inspect", work / "none.so"], "none.so"),
        ("a missing {\"file\": ...}", 1,
         ["run", model, "--args", json.dumps([{"file": str(work / "none.pt")}])],
         "cannot read"),
        ("{\"image\": ...} without torchvision", 1,
         ["run", model, "--args", json.dumps([{"image": str(work / "none.jpg")}])],
         "--library torchvision"),
        ("--out into a missing directory", 1,
         ["call", "aten::add", "--args", "[1, 2]", "--out", work / "none" / "o.pt"],
         "cannot write"),
        ("--jsonl with --out", 2, ["run", model, "--jsonl", "--out", work / "o.pt"], "--jsonl"),
    ]
    failures = 0
    for what, code, args, part in refusals:
        run = subprocess.run([tsb, *map(str, args)], capture_output=True, text=True, env=env,
                             stdin=subprocess.DEVNULL)
        err = run.stderr
        problems = []
        if run.returncode != code:
            problems.append(f"exit code {run.returncode}, wanted {code}")
        if not err.startswith("tsb: ") or err.count("\ntsb: "):
            problems.append("standard error is not one message starting with 'tsb: '")
        if part not in err:
            problems.append(f"the message lacks {part!r}")
        if (twice_said := repeated(err) or restarted(err)) is not None:
            problems.append(f"the message says {twice_said!r} twice")
        for call in ("tsbridge.load_library", "tsb_library_load", "tsb_load_library"):
            if call in err:
                problems.append(f"the advice names another host's call, {call}")
        if problems:
            failures += 1
            print(f"FAILED {what}: {'; '.join(problems)}\n  {err.strip()}")
    # --jsonl says a line's failure on standard output, once too.
    line = subprocess.run([tsb, "run", model, "describe", "--jsonl"], input="[1]\n",
                          capture_output=True, text=True).stdout
    error = json.loads(line)["error"]
    if (twice_said := repeated(error) or restarted(error)) is not None:
        failures += 1
        print(f"FAILED --jsonl line: says {twice_said!r} twice\n  {error}")
    print(f"{len(refusals) + 1 - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    assert repeated('tsb: cannot load module m.pt: cannot load module "m.pt": x') == \
        "cannot load module"
    assert repeated("tsb: cannot load module \"m.pt\": its code calls x") is None
    assert restarted("tsb: cannot compile m.ts: cannot compile the source: x") == "cannot compile"
    sys.exit(main(*sys.argv[1:]))
