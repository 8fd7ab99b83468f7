"""Every `unsafe` block and `unsafe impl` of the Rust host says why it is
sound (docs/rust.md, "Unsafe code").

Usage: check_safety.py PATH...   (files, or directories searched for *.rs)
       check_safety.py --self-test

The line holding `unsafe {` or `unsafe impl` must have, right above it, a
run of `//` comment lines one of which starts with `// SAFETY:`. `unsafe fn`
bodies need no comment of their own: lib.rs denies unsafe_op_in_unsafe_fn,
so their unsafe operations sit in blocks too. `unsafe` in comments, strings
and `unsafe extern "C" fn(...)` pointer types is not code to explain.
Prints each undocumented place as FILE:LINE and exits 1 when there is one.
"""
import pathlib
import re
import sys

UNSAFE = re.compile(r"\bunsafe\s*(\{|impl\b)")


def code_only(text):
    """`text` with comments, string and char literals blanked (newlines
    kept), so that line numbers still match."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == '"' or text.startswith('r"', i) or text.startswith('r#"', i):
            m = re.compile(r'r(#*)"').match(text, i)
            if m:  # raw string: ends at "###
                end = '"' + m.group(1)
                j = text.find(end, m.end())
                j = n if j < 0 else j + len(end)
            else:
                j = i + 1
                while j < n and text[j] != '"':
                    j += 2 if text[j] == "\\" else 1
                j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "'" and re.compile(r"'(\\.[^']*|[^\\'])'").match(text, i):
            m = re.compile(r"'(\\.[^']*|[^\\'])'").match(text, i)
            out.append(" " * (m.end() - i))
            i = m.end()
        else:
            out.append(c)
            i += 1
    return "".join(out)


def undocumented(text):
    """Line numbers (1-based) of unsafe blocks or impls without a SAFETY
    comment right above them."""
    lines = text.split("\n")
    code = code_only(text).split("\n")
    missing = []
    for number, line in enumerate(code, start=1):
        if not UNSAFE.search(line):
            continue
        above = number - 2  # index of the line above
        documented = False
        while above >= 0 and lines[above].strip().startswith("//"):
            if lines[above].strip().startswith("// SAFETY:"):
                documented = True
            above -= 1
        if not documented:
            missing.append(number)
    return missing


def rust_files(paths):
    for p in map(pathlib.Path, paths):
        if p.is_dir():
            yield from sorted(p.rglob("*.rs"))
        else:
            yield p


def self_test():
    good = "// SAFETY: why.\nlet x = unsafe { f() };\n// SAFETY: why,\n// on two lines.\nunsafe impl Send for X {}\n"
    assert undocumented(good) == [], undocumented(good)
    assert undocumented("let x = unsafe { f() };\n") == [1]
    assert undocumented("// A comment, not a reason.\nunsafe impl Sync for X {}\n") == [2]
    # A SAFETY comment separated by code covers nothing.
    assert undocumented("// SAFETY: why.\nlet a = 1;\nlet b = unsafe { g() };\n") == [3]
    # Not code: comments, strings, pointer types, unsafe fn.
    ignored = ('// unsafe { in a comment }\nlet s = "unsafe { in a string }";\n'
               'type F = unsafe extern "C" fn(*mut u8);\nunsafe fn f() {}\n'
               "let c = '{'; let r = r#\"unsafe impl\"#;\n")
    assert undocumented(ignored) == [], undocumented(ignored)
    print("check_safety.py: self-test passed")


def main(argv):
    if argv == ["--self-test"]:
        self_test()
        return 0
    failures = 0
    for path in rust_files(argv):
        for line in undocumented(path.read_text(encoding="utf-8")):
            print(f"{path}:{line}: an unsafe block or impl without a `// SAFETY:` comment right above it")
            failures += 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
