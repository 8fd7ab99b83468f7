"""abi_check.py's self-test: baselines made from copies of the real headers
(the tsbridge ABI's library is a stub compiled from tsbridge.h, one
definition per function), then each case edits a copy, compiles it and runs
the check: a break must be refused with its reason, an allowed change must
pass. Nothing is compared with a stored report."""
import contextlib
import io
import re
import shutil
import tempfile
from pathlib import Path

import abi_check


def edit(pattern, replacement, header="tsbridge.h"):
    def apply(files):
        text, n = re.subn(pattern, replacement, files[header], count=1, flags=re.M)
        if not n:
            raise SystemExit(f"self-test is stale: {pattern!r} is not in {header}")
        files[header] = text
    return apply


def bump(minor=1, major=0, prefix="TSB_VERSION", header="tsbridge.h"):
    def apply(files):
        for part, step in (("MAJOR", major), ("MINOR", minor)):
            edit(rf'(#define {prefix}_{part}\s+)(\d+)',
                 lambda m: m.group(1) + str(int(m.group(2)) + step), header)(files)
    return apply


ADD_FUNCTION = edit(r'^(TSB_API int32_t tsb_version\(void\);)',
                    r'\1\nTSB_API int32_t tsb_version_added(void);')
# (name, edits, ABI, None when it must pass or a text its errors must contain)
CASES = [
    ("unchanged", [], "tsbridge", None),
    ("a function removed", [bump(), edit(r'^TSB_API tsb_status\* tsb_any_keep\(.*$', '')],
     "tsbridge", "tsb_any_keep"),
    ("a signature changed", [bump(), edit(r'(tsb_any_keep\(const tsb_any\* v, )tsb_any\*',
                                          r'\1int64_t*')], "tsbridge", "tsb_any_keep"),
    ("a field inserted in the middle", [bump(), edit(
        r'(typedef struct tsb_tensor_info \{\n\s*size_t struct_size;[^\n]*\n)',
        r'\1  int32_t inserted;\n')], "tsbridge", "tsb_tensor_info"),
    ("an enumerator renumbered", [bump(), edit(r'TSB_KIND_LIST = 16', 'TSB_KIND_LIST = 15')],
     "tsbridge", "TSB_KIND_LIST"),
    ("an enumerator removed", [bump(), edit(r'^  TSB_KIND_ENUM = 22,\n', '')],
     "tsbridge", "TSB_KIND_ENUM"),
    ("two fields swapped", [bump(), edit(
        r'(  int32_t layout;[^\n]*\n)(  int32_t device_type;[^\n]*\n)', r'\2\1')],
     "tsbridge", "tsb_tensor_info"),
    ("the last field removed", [bump(), edit(r'  bool is_contiguous;[^\n]*\n', '')],
     "tsbridge", "tsb_tensor_info"),
    ("a field's type changed", [bump(), edit(r'  int32_t device_index;', '  uint32_t device_index;')],
     "tsbridge", "tsb_tensor_info"),
    ("a function added without a minor bump", [ADD_FUNCTION], "tsbridge", "needs a minor bump"),
    ("an enumerator added without a minor bump",
     [edit(r'(TSB_KIND_CUSTOM_CLASS = 24)', r'\1,\n  TSB_KIND_ADDED = 25')],
     "tsbridge", "needs a minor bump"),
    ("a new major", [bump(minor=0, major=1)], "tsbridge", "a new major needs a new baseline"),
    ("a function added with a minor bump", [bump(), ADD_FUNCTION], "tsbridge", None),
    ("an enumerator added with a minor bump", [bump(), edit(
        r'(TSB_KIND_CUSTOM_CLASS = 24)', r'\1,\n  TSB_KIND_ADDED = 25')], "tsbridge", None),
    ("a field appended to a struct_size struct with a minor bump", [bump(), edit(
        r'(bool is_contiguous;[^\n]*\n)(\} tsb_tensor_info;)', r'\1  int64_t added;\n\2')],
     "tsbridge", None),
    ("plugin.h unchanged", [], "plugin", None),
    ("plugin.h: a descriptor field inserted", [bump(prefix="TSB_PLUGIN_ABI", header="plugin.h"),
        edit(r'(  const char\* version;)', r'  const char* inserted;\n\1', "plugin.h")],
     "plugin", "tsb_plugin_descriptor"),
    ("plugin.h: a registrar slot's signature changed",
     [bump(prefix="TSB_PLUGIN_ABI", header="plugin.h"),
      edit(r'(tsb_status\* \(\*add_kind_codec\)\(void\* txn, )void\* kind_codec', r'\1int kind_codec',
           "plugin.h")], "plugin", "tsb_registrar"),
    ("plugin.h: a registrar slot added without a minor bump",
     [edit(r'(\} tsb_registrar;)', r'  void* slot_added;\n\1', "plugin.h")],
     "plugin", "needs a minor bump"),
    ("plugin.h: a registrar slot appended with a minor bump",
     [bump(prefix="TSB_PLUGIN_ABI", header="plugin.h"),
      edit(r'(\} tsb_registrar;)', r'  void* slot_added;\n\1', "plugin.h")], "plugin", None),
]


def tree(root, files, cc):
    """An include dir with these headers and the stub library built from it."""
    (root / "tsbridge").mkdir(parents=True)
    for name, text in files.items():
        (root / "tsbridge" / name).write_text(text)
    stub = abi_check.compile_library(cc, abi_check.stub_source(files["tsbridge.h"]), root,
                                     root / "libstub.so")
    return stub


def self_test(include, cc):
    real = {name: (include / "tsbridge" / name).read_text() for name in ("tsbridge.h", "plugin.h")}
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        baselines = tmp / "baselines"
        baselines.mkdir()
        stub = tree(tmp / "base", real, cc)
        with contextlib.redirect_stdout(io.StringIO()):
            for abi in abi_check.ABIS:
                abi_check.write_baseline(abi, tmp / "base", stub, baselines, cc)
        for i, (name, edits, abi, says) in enumerate(CASES):
            files = dict(real)
            for apply in edits:
                apply(files)
            root = tmp / f"case{i}"
            stub = tree(root, files, cc)
            errors = abi_check.check(abi, root, stub, baselines, cc)
            if says is None and errors:
                failures.append(f"{name}: refused:\n" + "\n".join(errors))
            elif says is not None and not any(says in e for e in errors):
                failures.append(f"{name}: not refused with {says!r} (got {errors})")
            else:
                print(f"{name}: {'refused' if says else 'accepted'}")
            shutil.rmtree(root)
    broken = sum(1 for case in CASES if case[3] is not None)
    print("\n".join(failures) or f"self-test: each of {broken} broken copies is refused and "
                                 f"each of {len(CASES) - broken} allowed ones passes")
    return 1 if failures else 0
