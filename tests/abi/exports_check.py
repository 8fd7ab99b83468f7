"""libtsbridge.so exports the documented symbols and nothing else (nm -D).

Documented (docs/abi.md, "What the library exports"):
- the C functions tsbridge.h declares (TSB_API): each must be exported, and
  every exported C symbol must be one of them;
- the C++ plugin SDK: the functions the headers under tsbridge/plugin/
  declare at namespace scope, the members of the classes they define, and
  those classes' vtables and typeinfo;
- the core internals the repository's own tests call, listed after the
  "testing:" comment of core/tsbridge.map (no ABI).
Anything else exported fails, naming the symbol.

Usage: exports_check.py LIBRARY INCLUDE_DIR MAP
       exports_check.py --self-test [--cxx CXX]   (breaks copies, sees each refused)
"""
import fnmatch
import re
import subprocess
import sys
import tempfile
from pathlib import Path

PROTOTYPE = re.compile(r'\bTSB_API\s+[^;{}#]*?\b(tsb_\w+)\s*\(')
FREE = re.compile(r'^(?!(?:inline|template|static|constexpr|using|namespace|class|struct|'
                  r'return|typedef|extern)\b)[A-Za-z_][^;(=]*?[\s*&](\w+)\(', re.M)
MEMBER = re.compile(r'^\s+(?:virtual\s+)?(?:[\w:<>,*&~]+\s+)*[*&]?(~?\w+)\s*\(', re.M)
CLASS = re.compile(r'^\s*(?:class|struct)\s+(\w+)[^;{]*\{', re.M)
SPECIAL = ("vtable for ", "typeinfo for ", "typeinfo name for ")


def strip_comments(text):
    return re.sub(r'//[^\n]*', '', re.sub(r'/\*.*?\*/', ' ', text, flags=re.S))


def sdk_names(plugin_dir):
    """({free function}, {class: {member}}) the SDK headers declare."""
    free, classes = set(), {}
    for path in sorted(plugin_dir.rglob("*.hpp")):
        text = strip_comments(path.read_text())
        free |= set(FREE.findall(text))
        for match in CLASS.finditer(text):
            depth, end = 1, match.end()
            while depth and end < len(text):
                depth += {"{": 1, "}": -1}.get(text[end], 0)
                end += 1
            body = text[match.end():end]
            classes.setdefault(match.group(1), set()).update(MEMBER.findall(body))
    return free, classes


def testing_patterns(map_text):
    """The map's patterns after its "testing:" comment."""
    rest = strip_comments(map_text.split("testing:", 1)[1].split("*/", 1)[1]
                          if "testing:" in map_text else "")
    return [q or u for q, u in re.findall(r'"([^"]+)"\s*;|([^\s";{}]+)\s*;', rest)
            if (q or u) not in ("local:", "*")]


def documented_cxx(name, free, classes):
    for prefix in SPECIAL:
        if name.startswith(prefix):
            scope = name[len(prefix):].split("::")
            return len(scope) == 2 and scope[0] == "tsb" and scope[1] in classes
    scope = name.replace("[abi:cxx11]", "").split("(", 1)[0].split("::")
    if len(scope) == 2 and scope[0] == "tsb":
        return scope[1] in free
    return len(scope) == 3 and scope[0] == "tsb" and scope[1] in classes and (
        scope[2] in classes[scope[1]] or scope[2] in (scope[1], "~" + scope[1]))


def check(library, include, map_path):
    nm = subprocess.run(["nm", "-D", "--defined-only", str(library)],
                        capture_output=True, text=True, check=True).stdout
    exported = {f.split()[2].split("@")[0]: f.split()[1] for f in nm.splitlines()
                if len(f.split()) == 3}
    mangled = [n for n in exported if n.startswith("_Z")]
    demangled = dict(zip(mangled, subprocess.run(
        ["c++filt"], input="\n".join(mangled), capture_output=True, text=True,
        check=True).stdout.splitlines()))
    declared = set(PROTOTYPE.findall(strip_comments((include / "tsbridge/tsbridge.h").read_text())))
    free, classes = sdk_names(include / "tsbridge/plugin")
    testing = testing_patterns(map_path.read_text())
    errors = [f"declared in tsbridge.h but not exported: {n}"
              for n in sorted(declared) if exported.get(n) != "T"]
    counts = {"C": 0, "SDK": 0, "testing": 0}
    for symbol in sorted(exported):
        name = demangled.get(symbol, symbol)
        if symbol in declared:
            counts["C"] += 1
        elif symbol.startswith("_Z") and documented_cxx(name, free, classes):
            counts["SDK"] += 1
        elif symbol.startswith("_Z") and any(fnmatch.fnmatchcase(name, p) for p in testing):
            counts["testing"] += 1
        else:
            errors.append(f"exported but not documented: {name}")
    return errors, counts


def self_test(cxx):
    """A library exporting what its headers and map document passes; each
    break (an undeclared C function, a declared one missing, a C++ internal
    exported without the map) fails, naming the symbol."""
    header = ("#define TSB_API __attribute__((visibility(\"default\")))\n"
              "TSB_API int tsb_one(void);\nTSB_API int tsb_two(int x);\n")
    sdk = ("namespace tsb {\nint Documented(int x);\nclass Codec {\n public:\n"
           "  virtual ~Codec();\n  virtual int Encode(int x) const;\n};\n}  // namespace tsb\n")
    source = ('extern "C" {\n#include "tsbridge/tsbridge.h"\n}\n#include "tsbridge/plugin/sdk.hpp"\n'
              'extern "C" int tsb_one(void) { return 1; }\n'
              'extern "C" int tsb_two(int x) { return x; }\n'
              'namespace tsb {\nint Documented(int x) { return x; }\n'
              'Codec::~Codec() {}\nint Codec::Encode(int x) const { return x; }\n'
              'int Helper(int x) { return x; }\nint Internal(int x) { return x; }\n}\n')
    good_map = ('{ global: tsb_*; extern "C++" { tsb::Documented*; tsb::Codec::*;\n'
                '"vtable for tsb::Codec"; "typeinfo for tsb::Codec"; "typeinfo name for tsb::Codec";\n'
                '/* testing: internals the tests call */ tsb::Helper*; }; local: *; };\n')
    cases = [
        ("documented only", "", source, good_map, None),
        ("an undeclared C function exported", "",
         source + 'extern "C" int tsb_secret(void) { return 0; }\n', good_map, "tsb_secret"),
        ("a declared C function not exported", "TSB_API int tsb_three(void);\n",
         source, good_map, "tsb_three"),
        ("a C++ internal exported (no map)", "", source, None, "tsb::Internal(int)"),
    ]
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "tsbridge/plugin").mkdir(parents=True)
        (root / "tsbridge/plugin/sdk.hpp").write_text(sdk)
        for name, extra, text, map_text, says in cases:
            (root / "tsbridge/tsbridge.h").write_text(header + extra)
            (root / "lib.cc").write_text(text)
            (root / "lib.map").write_text(map_text or good_map)
            command = [cxx, "-shared", "-fPIC", "-I", str(root), "-o", str(root / "lib.so"),
                       str(root / "lib.cc")]
            if map_text:
                command.append(f"-Wl,--version-script={root / 'lib.map'}")
            subprocess.run(command, check=True)
            errors, _ = check(root / "lib.so", root, root / "lib.map")
            if says is None and errors:
                failures.append(f"{name}: refused: {errors}")
            elif says is not None and not any(says in e for e in errors):
                failures.append(f"{name}: not refused naming {says!r} (got {errors})")
            else:
                print(f"{name}: {'refused' if says else 'accepted'}")
    print("\n".join(failures) or "self-test: the documented library passes and each of "
                                 f"{len(cases) - 1} broken copies is refused")
    return 1 if failures else 0


def main():
    if sys.argv[1:2] == ["--self-test"]:
        return self_test(sys.argv[3] if sys.argv[2:3] == ["--cxx"] else "c++")
    library, include, map_path = (Path(a) for a in sys.argv[1:4])
    errors, counts = check(library, include, map_path)
    print("\n".join(errors) or f"{library.name} exports {counts['C']} C functions of "
          f"tsbridge.h, {counts['SDK']} plugin SDK symbols and {counts['testing']} "
          "internals for the tests, nothing else")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
