"""The folders under core/ are layers: each may include only itself and the
folders below it in LAYERS (bottom first), so no two folders depend on
each other. Reads every file under core/, takes the folder graph from its
`#include "core/<folder>/...` lines, and fails naming every include that
reaches up (or into a folder LAYERS does not list), and any cycle.

Usage: core_layers_check.py CORE_DIR
"""
import re
import sys
from pathlib import Path

# Bottom to top. call is the schema binder shared by plugins and runtime.
LAYERS = ["compat", "errors", "types", "value", "codecs", "text", "binary",
          "call", "plugins", "runtime", "abi"]

INCLUDE = re.compile(r'^\s*#\s*include\s+"core/([^/"]+)/', re.M)


def folder_graph(core):
    """(folder -> {included folder -> first 'path:line' that includes it})."""
    graph = {}
    for path in sorted(p for p in core.rglob("*") if p.is_file()):
        rel = path.relative_to(core)
        if len(rel.parts) < 2:
            continue  # core/CMakeLists.txt
        text = path.read_text(errors="replace")
        edges = graph.setdefault(rel.parts[0], {})
        for match in INCLUDE.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            edges.setdefault(match.group(1), f"core/{rel}:{line}")
    return graph


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


def main(argv):
    core = Path(argv[1])
    graph = folder_graph(core)
    rank = {name: i for i, name in enumerate(LAYERS)}
    errors = []
    for folder in sorted(set(graph) - set(rank)):
        errors.append(f"core/{folder}/ is not in LAYERS (core_layers_check.py): "
                      "say where it belongs")
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
    if errors:
        print("Layers, bottom to top: " + " < ".join(LAYERS))
        print("\n".join(errors))
        return 1
    print("core/ layers, bottom to top: " + " < ".join(LAYERS) + ": no include reaches up")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
