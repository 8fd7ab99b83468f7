"""The folders under core/ are layers: each may include only itself and the
folders below it in LAYERS (bottom first), so no two folders depend on
each other. Reads every file under core/, takes the folder graph from its
`#include "core/<folder>/...` lines, and fails naming every include that
reaches up (or into a folder LAYERS does not list), and any cycle.

The SDK headers core/ implements are part of the graph too (the seam,
docs/architecture.md): the check reads each SDK header a core file
includes, finds which core folder defines what it declares (its free
functions, and the members of its classes defined out of line), and then
- a C++ header (.hpp) counts as an include of that folder: a folder below
  it may not include it, and one header is implemented by one folder;
- a C header (.h: the host and plugin ABI) gives every layer its structs
  and enums, but its functions only to the folder that implements them:
  a folder below may not call one.
And the layers start in one place, core/abi/library_start.cc (START): a
load-time initializer anywhere else (`__attribute__((constructor))`, or a
namespace-scope `const bool kX = (Register(...), true)`) would have a layer
set itself up, or fill one below it, unseen.

Usage: core_layers_check.py CORE_DIR SDK_INCLUDE_DIR
       core_layers_check.py --self-test   (shows each rule can fail)
"""
import re
import sys
import tempfile
from pathlib import Path

# Bottom to top. object is the handle every boundary value is; call is the
# schema binder shared by plugins and runtime.
LAYERS = ["compat", "errors", "object", "types", "value", "codecs", "text",
          "binary", "call", "plugins", "runtime", "abi"]

INCLUDE = re.compile(r'^\s*#\s*include\s+"core/([^/"]+)/', re.M)
SDK_INCLUDE = re.compile(r'^\s*#\s*include\s+"(tsbridge/[^"]+)"', re.M)
COMMENT = re.compile(r'//[^\n]*|/\*.*?\*/', re.S)
STRING = re.compile(r'"(?:\\.|[^"\\\n])*"')
# A definition at namespace scope (the house style does not indent inside
# namespaces): a return type, then [Class::]name( at the start of a line.
DEFINITION = re.compile(r'^(?![ \t#])[\w:<>,*& \t]*?\b((?:\w+::)?~?\w+)\s*\(', re.M)
CLASS = re.compile(r'\b(?:class|struct)\s+(\w+)\s*(?:final\s*)?(?::[^;{]*)?\{')
C_FUNCTION = re.compile(r'\bTSB_API\b[^;(]*?\b(\w+)\s*\(')
START = "core/abi/library_start.cc"
INITIALIZER = re.compile(r'__attribute__\s*\(\(\s*constructor|'
                         r'^\s*(?:\[\[maybe_unused\]\]\s*)?(?:static\s+)?const\s+bool\s+k[A-Z]\w*\s*=\s*\(',
                         re.M)
CXX_DECLARATION = re.compile(r'^(?![ \t#])[\w:<>,*& \t]*?\b(\w+)\s*\([^;{]*\)\s*;', re.M)


def code_of(text):
    """The text without comments and string literals, line numbers kept."""
    text = COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    return STRING.sub('""', text)


def line_of(text, pos):
    return text.count("\n", 0, pos) + 1


def core_files(core):
    for path in sorted(p for p in core.rglob("*") if p.is_file()):
        rel = path.relative_to(core)
        if len(rel.parts) >= 2 and path.suffix in (".h", ".cc", ".hpp"):
            yield rel.parts[0], f"core/{rel.as_posix()}", path.read_text(errors="replace")


def definitions(core):
    """{'Name' or 'Class::Name' -> [(folder, 'path:line')]} of core's .cc files."""
    found = {}
    for folder, where, text in core_files(core):
        if not where.endswith(".cc"):
            continue
        code = code_of(text)
        for match in DEFINITION.finditer(code):
            rest = code[match.end():]
            depth, i = 1, 0
            while i < len(rest) and depth:
                depth += {"(": 1, ")": -1}.get(rest[i], 0)
                i += 1
            body = re.match(r'[^;{]*', rest[i:]).group(0)
            if i < len(rest) and rest[i + len(body):i + len(body) + 1] == "{":
                name = match.group(1).split("::")[-2:]
                found.setdefault("::".join(name), []).append(
                    (folder, f"{where}:{line_of(code, match.start(1))}"))
    return found


def implementers(header_text, is_c, defined):
    """(what the header declares, {folder: first 'path:line' defining some})."""
    code = code_of(header_text)
    if is_c:
        names = set(C_FUNCTION.findall(code))
    else:
        names = set(CXX_DECLARATION.findall(code))
        for cls in CLASS.findall(code):
            names |= {n for n in defined if n.startswith(cls + "::")}
    folders = {}
    for name in sorted(names):
        for folder, where in defined.get(name, []):
            folders.setdefault(folder, where)
    return names, folders


def check(core, sdk):
    rank = {name: i for i, name in enumerate(LAYERS)}
    graph, errors, seam = {}, [], {}
    defined = definitions(core)
    headers = {}
    for folder, where, text in core_files(core):
        edges = graph.setdefault(folder, {})
        for match in INCLUDE.finditer(text):
            edges.setdefault(match.group(1), f"{where}:{line_of(text, match.start())}")
        for match in SDK_INCLUDE.finditer(text):
            headers.setdefault(match.group(1), []).append(
                (folder, f"{where}:{line_of(text, match.start())}"))
        code = code_of(text)
        for match in INITIALIZER.finditer(code):
            if where != START:
                errors.append(f"{where}:{line_of(code, match.start())}: a load-time "
                              f"initializer outside {START}, where the layers start")
    for folder in sorted(set(graph) - set(rank)):
        errors.append(f"core/{folder}/ is not in LAYERS (core_layers_check.py): "
                      "say where it belongs")
    for header, users in sorted(headers.items()):
        path = sdk / header
        if not path.is_file():
            continue  # generated, or not the SDK's
        is_c = path.suffix == ".h"
        names, folders = implementers(path.read_text(errors="replace"), is_c, defined)
        if not folders:
            continue  # header-only
        if len(folders) > 1:
            places = ", ".join(f"core/{f}/ ({w})" for f, w in sorted(folders.items()))
            errors.append(f"{header} is implemented by {places}: "
                          "one header, one layer (split it)")
        owner = max(folders, key=lambda f: rank.get(f, -1))
        seam[header] = owner
        if is_c:
            calls = re.compile(r'\b(' + "|".join(sorted(names)) + r')\s*\(')
            for folder, where, text in core_files(core):
                if rank.get(folder, len(LAYERS)) >= rank.get(owner, -1):
                    continue
                code = code_of(text)
                for match in calls.finditer(code):
                    errors.append(f"{where.split(':')[0]}:{line_of(code, match.start())}: "
                                  f"core/{folder}/ calls {match.group(1)} of {header}, "
                                  f"which core/{owner}/ implements, a layer above")
        else:
            for folder, where in users:
                if folder != owner:
                    graph[folder].setdefault(owner, f"{where} ({header})")
    for folder, edges in sorted(graph.items()):
        for target, where in sorted(edges.items()):
            if target == folder:
                continue
            if target not in rank:
                errors.append(f"{where}: includes core/{target}/, which is not in LAYERS")
            elif folder in rank and rank[target] > rank[folder]:
                errors.append(f"{where}: core/{folder}/ includes core/{target}/, "
                              "a layer above it")
    cycle = find_cycle(graph)
    if cycle:
        hops = [f"{a} -> {b} ({graph[a][b]})" for a, b in zip(cycle, cycle[1:])]
        errors.append("cycle between folders: " + ", ".join(hops))
    return errors, seam


def find_cycle(graph):
    """One cycle of folders as a list (first == last), or None."""
    state = {}  # folder -> 1 on the current path, 2 done

    def visit(node, path):
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, {})):
            if nxt == node:
                continue
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt, path)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node, [])
            if found:
                return found
    return None


def self_test():
    """Each rule, broken once in a small tree, must be reported."""
    clean = {
        "sdk/tsbridge/tsbridge.h": "TSB_API int tsb_thing_new(int x);\n",
        "sdk/tsbridge/iface.hpp": "namespace tsb {\nclass Codec {\n public:\n"
                                  "  virtual int Size() const;\n};\nint Find(int i);\n}\n",
        "core/types/iface.cc": '#include "tsbridge/iface.hpp"\nnamespace tsb {\n'
                               "int Codec::Size() const { return 0; }\n"
                               "int Find(int i) { return i; }\n}\n",
        "core/value/use.cc": '#include "core/types/x.h"\n#include "tsbridge/iface.hpp"\n'
                             '#include "tsbridge/tsbridge.h"\nint Use() { return 1; }\n',
        "core/types/x.h": "int X();\n",
        "core/abi/thing.cc": '#include "tsbridge/tsbridge.h"\n'
                             "int tsb_thing_new(int x) { return x; }\n",
    }
    broken = {
        "an include that reaches up": {"core/types/up.cc": '#include "core/value/y.h"\n'},
        "an SDK header implemented above its user": {
            "core/object/o.cc": '#include "tsbridge/iface.hpp"\nint O() { return 0; }\n'},
        "an SDK header implemented by two layers": {
            "core/codecs/more.cc": '#include "tsbridge/iface.hpp"\nnamespace tsb {\n'
                                   "int Find(int i) { return -i; }\n}\n"},
        "a C ABI function called below its layer": {
            "core/value/call.cc": '#include "tsbridge/tsbridge.h"\n'
                                  "int Call() { return tsb_thing_new(1); }\n"},
        "a folder LAYERS does not list": {"core/extra/e.cc": "int E() { return 0; }\n"},
        "a load-time initializer outside the start": {
            "core/codecs/init.cc": "[[maybe_unused]] const bool kDone = (Setup(), true);\n"},
    }
    failures = []
    for name, extra in [("the clean tree", {})] + list(broken.items()):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            for rel, text in {**clean, **extra}.items():
                (root / rel).parent.mkdir(parents=True, exist_ok=True)
                (root / rel).write_text(text)
            errors, _ = check(root / "core", root / "sdk")
            if bool(errors) != bool(extra):
                failures.append(f"{name}: {'no error' if extra else errors}")
    print("\n".join(failures) or f"self-test: the clean tree passes and "
                                 f"each of {len(broken)} broken trees fails")
    return 1 if failures else 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    errors, seam = check(Path(argv[1]), Path(argv[2]))
    if errors:
        print("Layers, bottom to top: " + " < ".join(LAYERS))
        print("\n".join(errors))
        return 1
    print("core/ layers, bottom to top: " + " < ".join(LAYERS) + ": no include reaches up")
    print("SDK headers core/ implements: " +
          ", ".join(f"{h} <- core/{f}/" for h, f in sorted(seam.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
