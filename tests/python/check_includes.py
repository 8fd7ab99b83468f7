"""The Python host converts through tsbridge.h alone: its sources may
include only Python.h, tsbridge/tsbridge.h (and its header-only C++ wrapper tsbridge.hpp), dlpack/dlpack.h, the C++
standard library and their own headers; never LibTorch (torch/, ATen/, c10/),
the core's internal headers (core/...), Abseil or the C++ SDK.

Usage: check_includes.py SOURCE_DIR
"""
import re
import sys
from pathlib import Path

ALLOWED_QUOTED = {"tsbridge/tsbridge.h", "tsbridge/tsbridge.hpp", "host.h", "calls.h"}
ALLOWED_ANGLED = {"Python.h", "dlpack/dlpack.h"}
STANDARD = re.compile(r"^[a-z_]+$")  # <string>, <unordered_map>, <cstring>, ...


def main(source_dir):
    problems, seen = [], 0
    for path in sorted(Path(source_dir).rglob("*")):
        if path.suffix not in (".cc", ".h", ".c", ".cpp", ".hpp"):
            continue
        for n, line in enumerate(path.read_text().splitlines(), 1):
            m = re.match(r'\s*#\s*include\s*([<"])([^>"]+)[>"]', line)
            if not m:
                continue
            seen += 1
            kind, name = m.groups()
            ok = (name in ALLOWED_QUOTED if kind == '"'
                  else name in ALLOWED_ANGLED or STANDARD.match(name))
            if not ok:
                problems.append(f"{path}:{n}: #include {kind}{name}: not allowed in the "
                                "Python host (only tsbridge.h, Python.h, dlpack.h, std)")
    for p in problems:
        print(p)
    if not seen:
        print(f"no #include found under {source_dir}")
        return 1
    print(f"{seen} includes checked, {len(problems)} not allowed")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
