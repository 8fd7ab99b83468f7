"""Checks that every code block in a guide is taken verbatim from a file.

A block is announced by an HTML comment on the line before its fence:

    <!-- from examples/plugin/mysparse_plugin.cc -->
    ```cpp
    ...
    ```

The check fails for a block with no such comment, a missing file, or text
that the file does not contain, so the guide shows only compiled code.
"""
import re
import sys
from pathlib import Path

BLOCK = re.compile(r"(?:<!-- from (?P<file>\S+) -->\n)?```(?P<lang>\w*)\n(?P<body>.*?)```",
                   re.S)


def main(doc: str, root: str) -> int:
    text = Path(doc).read_text()
    problems, checked = [], 0
    for match in BLOCK.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        if match["lang"] in ("", "text", "sh", "console"):
            continue  # prose, shell sessions: nothing to compile
        if not match["file"]:
            problems.append(f"{doc}:{line}: a {match['lang']} block names no source file")
            continue
        source = Path(root) / match["file"]
        if not source.is_file():
            problems.append(f"{doc}:{line}: {match['file']} does not exist")
        elif match["body"] not in source.read_text():
            problems.append(f"{doc}:{line}: this block is not in {match['file']} verbatim")
        checked += 1
    for problem in problems:
        print(problem)
    print(f"{checked} blocks checked, {len(problems)} problems")
    return 1 if problems or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
