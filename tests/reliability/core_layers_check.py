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

Each folder's code lives in its own namespace (NAMESPACES): tsb::<folder>,
or, for the folders that implement the SDK's own names and the value model
under them (errors, object, types, value, codecs), tsb itself. A file may
open its folder's namespace, an anonymous one, and another library's (a
forward declaration of LibTorch's), never a tsb namespace of another name.

With ARCHITECTURE_MD (docs/architecture.md), its table (the one whose
header is `| folder | files | ... |`) must be true: every file under core/
is listed in the row(s) of its own folder (`core/<folder>/`), and every path
the table lists exists (`a.{h,cc}` stands for a.h and a.cc, a `*` must match
something, a path ending in `/` is a folder). A row whose folder cell is
empty continues the folder above it.

Usage: core_layers_check.py CORE_DIR SDK_INCLUDE_DIR [ARCHITECTURE_MD]
       core_layers_check.py --self-test   (shows each rule can fail)
"""
import re
import sys
from pathlib import Path

from self_test import run_cases

# Bottom to top. object is the handle every boundary value is; call is the
# schema binder shared by plugins and runtime.
LAYERS = ["compat", "errors", "object", "types", "value", "codecs", "text",
          "binary", "call", "plugins", "runtime", "abi"]
# The folders whose code is in the SDK's namespace, tsb: they implement
# what tsbridge/plugin/ declares there (TypeError, TypeInfo, KindCodec,
# CoerceTo, ...) and the handles and codecs those names are made of. Every
# other folder's code is in tsb::<folder>.
SDK_NAMESPACE_FOLDERS = ["errors", "object", "types", "value", "codecs"]
NAMESPACE_OPEN = re.compile(r'\bnamespace\s+(?:([A-Za-z_][\w:]*)\s*)?\{|[{}]')
CHAR = re.compile(r"'(?:\\.|[^'\\\n])'")
TABLE_HEADER = re.compile(r'^\|\s*folder\s*\|\s*files\s*\|')
CELL_SPLIT = re.compile(r'(?<!\\)\|')
BACKTICKED = re.compile(r'`([^`]+)`')

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


def namespace_of(folder):
    return "tsb" if folder in SDK_NAMESPACE_FOLDERS else f"tsb::{folder}"


def check_namespaces(core):
    """Errors for each tsb namespace a core file opens that is not its folder's."""
    errors = []
    for folder, where, text in core_files(core):
        if folder not in LAYERS:
            continue  # reported as a folder LAYERS does not list
        expected = namespace_of(folder)
        code = CHAR.sub("' '", code_of(text))
        stack = []  # per open brace: the namespace it opened ("" anonymous), or None
        for match in NAMESPACE_OPEN.finditer(code):
            token = match.group(0)
            if token == "}":
                if stack:
                    stack.pop()
                continue
            if not token.startswith("namespace"):
                stack.append(None)
                continue
            name = match.group(1) or ""
            stack.append(name)
            if not name:
                continue  # anonymous: file-local
            full = "::".join([n for n in stack if n])
            if (full == "tsb" or full.startswith("tsb::")) and full != expected:
                errors.append(f"{where}:{line_of(code, match.start())}: opens namespace "
                              f"{full}; the code of core/{folder}/ lives in {expected} "
                              "(opened as one `namespace " + expected + " {`)")
    return errors


def expand_braces(token):
    """`a.{h,cc}` -> ['a.h', 'a.cc'] (any number of brace groups)."""
    match = re.search(r'\{([^{}]*)\}', token)
    if not match:
        return [token]
    return [path for alt in match.group(1).split(",")
            for path in expand_braces(token[:match.start()] + alt + token[match.end():])]


def table_rows(text):
    """(line, folder, [paths], role) of the folder table, continuations resolved."""
    lines = text.split("\n")
    start = next((i for i, line in enumerate(lines) if TABLE_HEADER.match(line)), None)
    if start is None:
        return None
    rows, folder = [], ""
    for i in range(start + 1, len(lines)):
        line = lines[i]
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in CELL_SPLIT.split(line.strip())[1:-1]]
        if len(cells) < 3 or (cells[0] and set(cells[0]) <= set("-: ")):
            continue  # the separator row
        named = BACKTICKED.findall(cells[0])
        if named:
            folder = named[0]
        paths = [p for token in BACKTICKED.findall(cells[1]) for p in expand_braces(token)]
        rows.append((i + 1, folder, paths, cells[2]))
    return rows


def check_table(core, docs):
    """Errors for core files missing from docs' folder table and listed paths
    that do not exist (paths relative to the repository, core's parent)."""
    root = core.parent
    shown = docs.name
    try:
        rows = table_rows(docs.read_text(errors="replace"))
    except OSError as e:
        return [f"{docs}: cannot read it ({e})"]
    if rows is None:
        return [f"{shown}: no table with the header `| folder | files | ... |`"]
    errors, listed = [], set()
    for line, folder, paths, _ in rows:
        if not folder.endswith("/"):
            errors.append(f"{shown}:{line}: the folder `{folder}` does not end in '/'")
            continue
        for path in paths:
            full = folder + path
            if "*" in path or "?" in path:
                if not any(root.glob(full)):
                    errors.append(f"{shown}:{line}: `{full}` matches no file")
            elif path.endswith("/"):
                if not (root / full).is_dir():
                    errors.append(f"{shown}:{line}: `{full}` is listed and is not a folder")
            elif not (root / full).is_file():
                errors.append(f"{shown}:{line}: `{full}` is listed and does not exist")
            else:
                listed.add((folder, full))
    for folder, where, _ in core_files(core):
        if (f"core/{folder}/", where) not in listed:
            errors.append(f"{where} is not in {shown}'s table: list it in a "
                          f"`core/{folder}/` row with its role")
    return errors


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


def check(core, sdk, docs=None):
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
    errors += check_namespaces(core)
    if docs is not None:
        errors += check_table(core, docs)
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
    """Each rule, broken once in a small tree, must be reported: the clean
    tree passes, and each broken one fails with the rule's own message."""
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
        "core/call/bind.cc": "namespace torch::jit {\nclass Graph;\n}\nnamespace tsb::call {\n"
                             "namespace {\nchar Open() { return '{'; }\n}\n"
                             "int Bind() { return Open(); }\n}  // namespace tsb::call\n",
    }
    # (what is broken, files added, a file left out of the table, what the error says)
    broken = [
        ("an include that reaches up", {"core/types/up.cc": '#include "core/value/y.h"\n'},
         None, "a layer above it"),
        ("an SDK header implemented above its user",
         {"core/object/o.cc": '#include "tsbridge/iface.hpp"\nint O() { return 0; }\n'},
         None, "a layer above it"),
        ("an SDK header implemented by two layers",
         {"core/codecs/more.cc": '#include "tsbridge/iface.hpp"\nnamespace tsb {\n'
                                 "int Find(int i) { return -i; }\n}\n"},
         None, "one header, one layer"),
        ("a C ABI function called below its layer",
         {"core/value/call.cc": '#include "tsbridge/tsbridge.h"\n'
                                "int Call() { return tsb_thing_new(1); }\n"},
         None, "calls tsb_thing_new"),
        ("a folder LAYERS does not list", {"core/extra/e.cc": "int E() { return 0; }\n"},
         None, "not in LAYERS"),
        ("a load-time initializer outside the start",
         {"core/codecs/init.cc": "[[maybe_unused]] const bool kDone = (Setup(), true);\n"},
         None, "load-time initializer"),
        ("a folder's code in another folder's namespace",
         {"core/call/other.cc": "namespace tsb::runtime {\nint F() { return 0; }\n}\n"},
         None, "opens namespace tsb::runtime"),
        ("a folder's code in a namespace no folder names",
         {"core/text/json.cc": "namespace tsb {\nnamespace json {\nint F();\n}\n}\n"},
         None, "opens namespace tsb;"),
        ("an SDK folder's code in a namespace of its own",
         {"core/value/inner.cc": "namespace tsb::value {\nint F();\n}\n"},
         None, "opens namespace tsb::value"),
        ("a core file missing from the architecture table",
         {"core/value/new.cc": "int New() { return 0; }\n"}, "core/value/new.cc",
         "core/value/new.cc is not in architecture.md's table"),
        ("a core file listed under another folder's row",
         {"core/value/moved.cc": "int Moved() { return 0; }\n"}, "core/value/moved.cc",
         "core/value/moved.cc is not in"),
        ("a listed path that does not exist", {}, "core/value/gone.cc",
         "`core/value/gone.cc` is listed and does not exist"),
        ("a listed pattern that matches nothing", {}, "core/types/*_none.cc",
         "`core/types/*_none.cc` matches no file"),
    ]

    def table(files, left_out):
        """An architecture table of the tree's core files, one row per folder."""
        folders = {}
        for rel in files:
            if rel.startswith("core/") and rel != left_out:
                folder, name = rel[len("core/"):].split("/", 1)
                folders.setdefault(folder, []).append(name)
        rows = ["| folder | files | what it owns |", "|---|---|---|"]
        for folder, names in sorted(folders.items()):
            first, *rest = sorted(names)
            rows.append(f"| `core/{folder}/` | `{first}` | a role |")
            rows += [f"| | `{name}` | a role |" for name in rest]
        return "# Architecture\n\n" + "\n".join(rows) + "\n\nAfter the table.\n"

    def tree(name, extra, left_out):
        files = {**clean, **extra}
        docs = table(files, left_out)
        if name == "a core file listed under another folder's row":
            docs = docs.replace("|---|---|---|", "|---|---|---|\n| `core/` | `value/moved.cc` | "
                                "listed, but not in the row of core/value/ |")
        elif left_out is not None and left_out not in files:
            docs = docs.replace("|---|---|---|",
                                f"|---|---|---|\n| `core/` | `{left_out[5:]}` | listed |")
        return {**files, "docs/architecture.md": docs}

    cases = [(name, tree(name, extra, left_out), says) for name, extra, left_out, says
             in [("the clean tree", {}, None, None)] + broken]
    return run_cases(cases, lambda root: check(root / "core", root / "sdk",
                                               root / "docs" / "architecture.md")[0])


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) not in (3, 4):
        print(__doc__)
        return 2
    docs = Path(argv[3]) if len(argv) == 4 else None
    errors, seam = check(Path(argv[1]), Path(argv[2]), docs)
    if errors:
        print("Layers, bottom to top: " + " < ".join(LAYERS))
        print("\n".join(errors))
        return 1
    print("core/ layers, bottom to top: " + " < ".join(LAYERS) + ": no include reaches up")
    print("SDK headers core/ implements: " +
          ", ".join(f"{h} <- core/{f}/" for h, f in sorted(seam.items())))
    print("namespaces: " + ", ".join(f"core/{f}/ {namespace_of(f)}" for f in LAYERS))
    if docs is not None:
        print(f"{docs.name}: every core file listed under its folder, every listed path there")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
