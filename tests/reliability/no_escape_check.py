"""The no-escape guarantee, checked from the sources and the library.

1. The functions libtsbridge.so exports (nm -D) are exactly the ones
   tsbridge.h declares: nothing undeclared leaks out, nothing declared is
   missing.
2. Every exported function's body runs inside tsb::abi::Guard, directly or
   through a helper whose body does; the few that do not are listed below
   with the reason they cannot throw, and must stay short.

Usage: no_escape_check.py HEADER LIBRARY SOURCE_DIR...
"""
import re
import subprocess
import sys
from pathlib import Path

# Functions with no Guard, and why nothing can escape them.
UNGUARDED = {
    "tsb_version": "returns a constant",
    "tsb_version_get_string": "returns a string literal",
    "tsb_status_get_code": "reads a field",
    "tsb_status_get_message": "reads a field",
    "tsb_status_get_path": "reads a field",
    "tsb_status_get_detail": "reads a field",
    "tsb_status_get_backtrace": "reads a field",
    "tsb_status_free": "delete of a status; destructors do not throw",
    "tsb_status_new": "NewStatus is noexcept and falls back to a static status",
    "tsb_status_new_at": "NewStatus is noexcept and falls back to a static status",
    "tsb_any_retain": "an atomic increment",
    "tsb_any_release": "an atomic decrement and a delete; destructors do not throw",
    "tsb_handle_count": "an atomic load",
    "tsb_string_free": "free()",
    "tsb_plugin_count": "catches everything itself",
    "tsb_plugin_get_bundled_dir": "catches everything itself",
    "tsb_module_free": "a delete; destructors do not throw",
}
MAX_UNGUARDED_LINES = 8

DEFINITION = re.compile(
    r"^(?:[\w:<>\*\s]+?)\b(\w+)\(([^;{]*?)\)\s*(?:noexcept\s*)?\{", re.M)


def bodies(sources):
    """name -> body text for every function defined in the sources."""
    found = {}
    for path in sources:
        text = path.read_text()
        for match in DEFINITION.finditer(text):
            depth, i = 1, match.end()
            while depth and i < len(text):
                depth += {"{": 1, "}": -1}.get(text[i], 0)
                i += 1
            found.setdefault(match.group(1), text[match.end():i - 1])
    return found


def main(header, library, *source_dirs):
    declared = set(re.findall(r"TSB_API[^;]*?\b(tsb_\w+)\s*\(", Path(header).read_text()))
    nm = subprocess.run(["nm", "-D", "--defined-only", library], check=True,
                        capture_output=True, text=True).stdout
    exported = {line.split()[-1] for line in nm.splitlines()
                if line.split()[-1].startswith("tsb_")}
    problems = [f"exported but not declared: {n}" for n in sorted(exported - declared)]
    problems += [f"declared but not exported: {n}" for n in sorted(declared - exported)]

    sources = [p for d in source_dirs for p in Path(d).rglob("*.cc")]
    body_of = bodies(sources)
    guarded = {name for name, body in body_of.items() if "Guard(" in body}
    # A helper that returns Guard(...) guards its callers too.
    for name, body in body_of.items():
        if any(re.search(rf"\breturn {helper}\b", body) for helper in guarded):
            guarded.add(name)
    for name in sorted(exported):
        body = body_of.get(name)
        if body is None:
            problems.append(f"{name}: no definition found in the sources")
        elif name in UNGUARDED:
            if body.count("\n") > MAX_UNGUARDED_LINES:
                problems.append(f"{name}: unguarded ({UNGUARDED[name]}) but "
                                f"{body.count(chr(10))} lines long")
        elif name not in guarded:
            problems.append(f"{name}: its body does not run inside Guard()")
    for problem in problems:
        print(problem)
    print(f"{len(exported)} exported functions checked")
    print(f"{len(exported) - len(problems)} passed, {len(problems)} failed")
    return 1 if problems or not exported else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
