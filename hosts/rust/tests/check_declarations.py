"""The Rust host's hand-written `extern "C"` declarations against tsbridge.h.

Usage: check_declarations.py HEADER SYS_RS. Every TSB_API function of the
header must be declared in SYS_RS with the same name, the same number of
parameters and, parameter by parameter and for the return, the Rust type
the C type maps to; SYS_RS may declare nothing the header lacks. Prints
each difference and exits 1 when there is one.
"""
import re
import sys

# C type (spaces normalised, `struct` dropped) -> the Rust spelling sys.rs uses.
SCALARS = {
    "void": "()", "bool": "bool", "int32_t": "i32", "int64_t": "i64", "uint32_t": "u32",
    "uint64_t": "u64", "size_t": "usize", "double": "f64", "char": "c_char",
    "tsb_code": "tsb_code", "tsb_kind": "tsb_kind", "tsb_trace_fn": "tsb_trace_fn",
}


def rust_type(c):
    """The Rust spelling of C type `c`: "const char* const*" is
    "*const *const c_char" (each pointer level keeps its own const)."""
    c = " ".join(c.replace("struct ", "").split())
    parts = c.split("*")
    stars = len(parts) - 1
    name = [t for t in parts[0].split() if t != "const"][0]
    rust = "c_void" if (name == "void" and stars) else SCALARS.get(name, name)
    # Level 1's const is before its star; level k's is after star k-1.
    consts = ["const" in parts[0].split()] + ["const" in p.split() for p in parts[1:stars]]
    for is_const in consts[:stars]:
        rust = ("*const " if is_const else "*mut ") + rust
    return rust


def header_functions(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    out = {}
    for m in re.finditer(r"^TSB_API\s+(.*?)\b(tsb_\w+)\s*\((.*?)\)\s*;", text, flags=re.S | re.M):
        ret, name, params = m.group(1), m.group(2), " ".join(m.group(3).split())
        types = []
        if params != "void":
            for p in params.split(","):
                p = p.strip()
                pm = re.match(r"(.*?)(\w+)$", p)  # the last word is the name
                types.append(rust_type(pm.group(1)))
        out[name] = (types, rust_type(ret))
    return out


def rust_functions(text):
    block = text[text.index('extern "C" {'):]
    out = {}
    for m in re.finditer(r"pub fn (\w+)\((.*?)\)(?:\s*->\s*([^;]+))?;", block, flags=re.S):
        params = [p.strip() for p in m.group(2).split(",") if p.strip()]
        types = [" ".join(p.split(":", 1)[1].split()) for p in params]
        out[m.group(1)] = (types, " ".join((m.group(3) or "()").split()))
    return out


def main():
    header = header_functions(open(sys.argv[1]).read())
    rust = rust_functions(open(sys.argv[2]).read())
    problems = []
    for name, (types, ret) in sorted(header.items()):
        if name not in rust:
            problems.append(f"{name}: in the header, not declared in sys.rs")
            continue
        rtypes, rret = rust[name]
        if len(rtypes) != len(types):
            problems.append(f"{name}: {len(types)} parameters in the header, {len(rtypes)} in sys.rs")
            continue
        for i, (want, got) in enumerate(zip(types, rtypes)):
            if want != got:
                problems.append(f"{name}: parameter {i}: expected {want} (the header's), got {got}")
        if ret != rret:
            problems.append(f"{name}: return: expected {ret}, got {rret}")
    for name in sorted(set(rust) - set(header)):
        problems.append(f"{name}: declared in sys.rs, not in the header")
    for p in problems:
        print(p)
    print(f"{len(header)} functions in the header, {len(rust)} in sys.rs, {len(problems)} differences")
    return 1 if problems else 0


sys.exit(main())
