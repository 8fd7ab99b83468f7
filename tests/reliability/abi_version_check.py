"""The documentation quotes the current host ABI version as the header has it.

The version lives in one place, the macros at the top of
sdk/include/tsbridge/tsbridge.h (TSB_VERSION_MAJOR, _MINOR, _PATCH). A page
that states the current version says so in one of two forms, and this check
holds both to the header (docs/abi.md, "Versions"):
- the phrase "current ABI MAJOR.MINOR" (or MAJOR.MINOR.PATCH), the words
  possibly broken across lines: "the current ABI 1.9";
- a quoted macro, `#define TSB_VERSION_MINOR 9`.
Every other version a page names is the one that added something ("added
in 1.6", "`tsb_any_unflatten` (1.9)", "ABI 1.6"): history, never checked.
docs/appendix/ is history as a whole and is not read.

Usage: abi_version_check.py TSBRIDGE_H SOURCE_DIR   (reads every *.md there)
       abi_version_check.py --self-test              (shows each rule can fail)
"""
import re
import sys
from pathlib import Path

from self_test import run_cases

MACRO = re.compile(r'^\s*#\s*define\s+TSB_VERSION_(MAJOR|MINOR|PATCH)\s+(\d+)\b', re.M)
CURRENT = re.compile(r'\bcurrent\s+ABI\s+(\d+)\.(\d+)(?:\.(\d+))?\b')
SKIPPED = ("docs/appendix/",)


def header_version(header):
    """{'MAJOR': 1, 'MINOR': 9, 'PATCH': 0} from the header, or an error."""
    found = {part: int(value) for part, value in MACRO.findall(header.read_text())}
    missing = [p for p in ("MAJOR", "MINOR", "PATCH") if p not in found]
    if missing:
        return None, f"{header}: no TSB_VERSION_{missing[0]} macro"
    return found, None


def pages(root):
    for path in sorted(root.rglob("*.md")):
        rel = path.relative_to(root).as_posix()
        first = rel.split("/", 1)[0]
        if first.startswith(".") or first.startswith("build") or rel.startswith(SKIPPED):
            continue
        yield rel, path.read_text(errors="replace")


def check(header, root):
    version, error = header_version(header)
    if error:
        return [error], None
    current = f"{version['MAJOR']}.{version['MINOR']}.{version['PATCH']}"
    errors = []
    for rel, text in pages(root):
        for match in MACRO.finditer(text):
            part, value = match.group(1), int(match.group(2))
            if value != version[part]:
                line = text.count("\n", 0, match.start()) + 1
                errors.append(f"{rel}:{line}: quotes TSB_VERSION_{part} {value}; "
                              f"the header has {version[part]} (ABI {current})")
        for match in CURRENT.finditer(text):
            major, minor, patch = match.groups()
            quoted = (int(major), int(minor)) + ((int(patch),) if patch else ())
            expected = (version["MAJOR"], version["MINOR"]) + ((version["PATCH"],) if patch else ())
            if quoted != expected:
                line = text.count("\n", 0, match.start()) + 1
                shown = " ".join(match.group(0).split())
                errors.append(f'{rel}:{line}: says "{shown}"; the header is at ABI {current}')
    return errors, current


def self_test():
    """A clean tree passes; each wrong quote fails, naming its page."""
    header = ("#define TSB_VERSION_MAJOR 1\n#define TSB_VERSION_MINOR 9\n"
              "#define TSB_VERSION_PATCH 0\n")
    clean = {
        "README.md": "The header (the current ABI\n1.9, the library's version).\n"
                     "`tsb_any_flatten` (1.4); added in 1.6; ABI 1.8's tuples.\n",
        "docs/abi.md": "```c\n#define TSB_VERSION_MAJOR 1\n#define TSB_VERSION_MINOR 9\n```\n"
                       "The current ABI 1.9.0.\n",
        "docs/appendix/history.md": "The current ABI 1.2 (as it was that day).\n",
    }
    broken = [
        ("a quoted macro another than the header's",
         {"docs/abi.md": "#define TSB_VERSION_MINOR 8\n"}, "docs/abi.md:1"),
        ("a current version another than the header's",
         {"README.md": "The header (the current ABI\n1.7, the library's version).\n"},
         "README.md:1"),
        ("a current version with another patch",
         {"docs/hosts.md": "Built for the current ABI 1.9.3.\n"}, "docs/hosts.md:1"),
        ("a header without its version", {"HEADER": "#define TSB_VERSION_MAJOR 1\n"},
         "no TSB_VERSION_MINOR"),
    ]
    cases = [(name, {**clean, "HEADER": header, **extra}, says)
             for name, extra, says in [("the clean tree", {}, None)] + broken]
    return run_cases(cases, lambda root: check(root / "HEADER", root)[0])


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) != 3:
        print(__doc__)
        return 2
    errors, current = check(Path(argv[1]), Path(argv[2]))
    if errors:
        print("\n".join(errors))
        return 1
    print(f"every page that quotes the current ABI says {current}, as the header does")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
