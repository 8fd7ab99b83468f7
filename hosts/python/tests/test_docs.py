"""docs/python.md lists every public name of the package, and every
attribute of a Library and a Plugin: this fails when one is missing."""
from pathlib import Path

import tsbridge

DOC = (Path(__file__).resolve().parents[3] / "docs" / "python.md").read_text()


def test_every_exported_name_is_documented():
    names = [n for n in dir(tsbridge) if not n.startswith("_") and n not in ("ops",)]
    names.append("ops")
    missing = [n for n in names if f"`tsbridge.{n}" not in DOC and f"`{n}`" not in DOC
               and f", `{n}" not in DOC]
    assert not missing, f"docs/python.md does not list: {missing}"


def test_every_library_and_plugin_attribute_is_documented():
    library = tsbridge.Library({"id": 0, "name": "", "path": "", "operators": []})
    plugin_fields = ["id", "name", "version", "path", "platform_tag", "kinds", "types",
                     "functions"]
    for cls, fields in (("Library", vars(library)), ("Plugin", plugin_fields)):
        row = next(line for line in DOC.splitlines() if line.startswith(f"| `tsbridge.{cls}` |"))
        missing = [f for f in fields if f"`{f}`" not in row]
        assert not missing, f"docs/python.md's {cls} row does not name: {missing}"


def test_library_attributes_are_what_the_doc_says():
    # The fields a loaded Library has are the four the doc names.
    for library in tsbridge.libraries():
        assert sorted(vars(library)) == ["id", "name", "operators", "path"]
