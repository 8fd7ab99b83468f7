"""The Python host converts through tsbridge.h alone: its sources may
include only Python.h, tsbridge/tsbridge.h (and its header-only C++ wrapper tsbridge.hpp,
host kit host/kit.hpp and call plan host/call_plan.hpp), dlpack/dlpack.h, the C++
standard library and their own headers; never LibTorch (torch/, ATen/, c10/),
the core's internal headers (core/...), Abseil or the C++ SDK.

Usage: check_includes.py SOURCE_DIR [--allow HEADER ...]
(the R host passes its own: cpp11.hpp, R.h, ... and its local headers)
"""
import re
import sys
from pathlib import Path

ALLOWED_QUOTED = {"tsbridge/tsbridge.h", "tsbridge/host/tsbridge.hpp", "tsbridge/host/kit.hpp",
                  "tsbridge/host/call_plan.hpp", "host.h", "calls.h", "torch_fastpath.h"}
ALLOWED_ANGLED = {"Python.h", "dlpack/dlpack.h"}
STANDARD = re.compile(r"^[a-z_]+$")  # <string>, <unordered_map>, <cstring>, ...


def main(source_dir, extra=()):
    problems, seen = [], 0
    allowed_quoted = ALLOWED_QUOTED | set(extra)
    allowed_angled = ALLOWED_ANGLED | set(extra)
    for path in sorted(Path(source_dir).rglob("*")):
        if path.suffix not in (".cc", ".h", ".c", ".cpp", ".hpp"):
            continue
        for n, line in enumerate(path.read_text().splitlines(), 1):
            m = re.match(r'\s*#\s*include\s*([<"])([^>"]+)[>"]', line)
            if not m:
                continue
            seen += 1
            kind, name = m.groups()
            ok = (name in allowed_quoted if kind == '"'
                  else name in allowed_angled or STANDARD.match(name))
            if not ok:
                problems.append(f"{path}:{n}: #include {kind}{name}: not allowed in the "
                                "host (only tsbridge.h, dlpack.h, std and the host's own)")
    for p in problems:
        print(p)
    if not seen:
        print(f"no #include found under {source_dir}")
        return 1
    print(f"{seen} includes checked, {len(problems)} not allowed")
    return 1 if problems else 0


if __name__ == "__main__":
    extra = sys.argv[sys.argv.index("--allow") + 1:] if "--allow" in sys.argv else []
    sys.exit(main(sys.argv[1], extra))
