"""The C ABIs held to their stored baselines with libabigail (abidw, abidiff).

Two ABIs, each with its version macros and its baselines in sdk/abi/:
- tsbridge (tsbridge.h, TSB_VERSION_MAJOR/MINOR): the library's exported
  tsb_* functions as its DWARF gives them (`library` part), and every struct,
  enum and function pointer type the header defines (`types` part: a probe,
  one function taking each type, compiled with -g from the header);
- plugin (plugin.h, TSB_PLUGIN_ABI_MAJOR/MINOR): its types, by a probe.
A baseline is NAME-MAJOR.MINOR.PART.abi, made by abidw at the last minor
release. Against it (docs/abi.md, "What a release may change"):
- the same MAJOR.MINOR: any change fails, an addition too (a patch release
  changes no declaration);
- a newer minor: functions and enumerators may be added, and fields at the
  end of a growable struct (one that starts with `size_t struct_size`, and
  plugin.h's registrar table); anything else fails;
- another major (or an older minor) fails: a new major needs a new baseline.

Usage: abi_check.py check ABI --include DIR [--library LIB] --baselines DIR [--cc CC]
       abi_check.py baseline ABI --include DIR [--library LIB] --baselines DIR [--cc CC]
       abi_check.py --self-test --include DIR [--cc CC]   (breaks copies, sees each refused)
"""
import argparse
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

ABIS = {"tsbridge": ("tsbridge.h", "TSB_VERSION", ()),
        "plugin": ("plugin.h", "TSB_PLUGIN_ABI", ("tsb_registrar",))}
TYPE_DEF = re.compile(r'\btypedef\s+(struct|enum)\s+(\w+)\s*\{')
FN_POINTER = re.compile(r'\btypedef\s+[^;{}]*?\(\s*\*\s*(\w+)\s*\)\s*\(')
PROTOTYPE = re.compile(r'\bTSB_API\s+([^;{}#]*?)\b(tsb_\w+)\s*\(([^;{}]*)\)\s*;')
BASELINE = re.compile(r'^(\w+)-(\d+)\.(\d+)\.(\w+)\.abi$')


def strip_comments(text):
    return re.sub(r'//[^\n]*', '', re.sub(r'/\*.*?\*/', ' ', text, flags=re.S))


def header_version(text, prefix):
    found = dict(re.findall(rf'^\s*#\s*define\s+{prefix}_(MAJOR|MINOR)\s+(\d+)\b', text, re.M))
    if set(found) != {"MAJOR", "MINOR"}:
        raise SystemExit(f"no {prefix}_MAJOR/_MINOR macros in the header")
    return int(found["MAJOR"]), int(found["MINOR"])


def growable(text, listed):
    """Structs that may grow at the end: struct_size first, or listed."""
    text = strip_comments(text)
    first = re.findall(r'\btypedef\s+struct\s+(\w+)\s*\{\s*size_t\s+struct_size\s*;', text)
    return sorted(set(first) | set(listed))


def opaque(text):
    """Structs the header declares but never defines (tsb_status, DLPack's
    DLManagedTensor): it promises nothing about their layout."""
    text = strip_comments(text)
    declared = set(re.findall(r'\bstruct\s+(\w+)\s*;', text))
    declared |= set(re.findall(r'\btypedef\s+struct\s+(\w+)\s+\w+\s*;', text))
    return sorted(declared - set(re.findall(r'\bstruct\s+(\w+)\s*\{', text)))


def probe_source(header, text):
    """One exported function per type the header defines, so that abidw
    records each whole (DWARF keeps a type only where something uses it)."""
    text = strip_comments(text)
    lines = [f'#include "tsbridge/{header}"']
    for kind, name in TYPE_DEF.findall(text):
        lines.append(f"void tsb_probe_{name}({name}* p) {{ (void)p; }}")
    for name in FN_POINTER.findall(text):
        lines.append(f"void tsb_probe_{name}({name} f) {{ (void)f; }}")
    return "\n".join(lines) + "\n"


def stub_source(text):
    """Definitions of the header's functions (the self-test's library)."""
    lines = ['#include <string.h>', '#include "tsbridge/tsbridge.h"']
    for ret, name, params in PROTOTYPE.findall(strip_comments(text)):
        ret = " ".join(ret.split())
        body = "{}" if ret == "void" else f"{{ {ret} r; memset(&r, 0, sizeof r); return r; }}"
        lines.append(f"{ret} {name}({' '.join(params.split())}) {body}")
    return "\n".join(lines) + "\n"


def run(command, **kw):
    return subprocess.run(command, capture_output=True, text=True, **kw)


def compile_library(cc, source, include, out):
    src = out.with_suffix(".c")
    src.write_text(source)
    done = run([cc, "-std=gnu2x", "-g", "-O0", "-fPIC", "-shared", "-I", str(include),
                "-o", str(out), str(src)])
    if done.returncode:
        raise SystemExit(f"{cc} failed on {src}:\n{done.stderr}")
    return out


def abidw(library, header, out):
    """The ABI of the library's exported tsb_* functions and the types they
    reach; the types not defined in the header are left opaque."""
    nm = run(["nm", "-D", "--defined-only", str(library)])
    names = [f.split()[2] for f in nm.stdout.splitlines()
             if len(f.split()) == 3 and f.split()[1] in "TW" and f.split()[2].startswith("tsb_")]
    listed = out.with_suffix(".symbols")
    listed.write_text("[abi_whitelist]\n" + "".join(f"  {n}\n" for n in sorted(names)))
    done = run(["abidw", "--no-corpus-path", "--no-comp-dir-path", "--short-locs",
                "--no-elf-needed", "--drop-undefined-syms", "--exported-interfaces-only",
                "--kmi-whitelist", str(listed), "--header-file", str(header),
                "--drop-private-types", "--out-file", str(out), str(library)])
    if done.returncode:
        raise SystemExit(f"abidw failed on {library}:\n{done.stdout}{done.stderr}")
    return out


def abidiff(old, new, newer_minor, growables, opaques, tmp):
    """abidiff's report, or "" when the change is allowed."""
    rules = ["[suppress_type]", "  type_kind = struct",
             f"  name_regexp = ^({'|'.join(opaques)})$"] if opaques else []
    command = ["abidiff", "--no-show-locs"]
    if newer_minor:
        command.append("--no-added-syms")
        if growables:
            rules += ["[suppress_type]", "  type_kind = struct",
                      f"  name_regexp = ^({'|'.join(growables)})$",
                      "  has_data_member_inserted_at = end", "  has_size_change = yes"]
    else:
        command.append("--harmless")  # an added enumerator is a change too
    suppressions = tmp / "allowed.suppr"
    suppressions.write_text("\n".join(rules) + "\n")
    done = run(command + ["--suppressions", str(suppressions), str(old), str(new)])
    if done.returncode & 3 and "incompatible format version" in done.stdout + done.stderr:
        # A newer libabigail (Debian testing's 3.0) writes another ABIXML
        # format than the baseline's; abilint reads the baseline and writes
        # it again in its own.
        converted = tmp / f"converted-{old.name}"
        lint = run(["abilint", str(old)])
        if lint.returncode:
            raise SystemExit(f"abilint could not read {old}:\n{lint.stderr}")
        converted.write_text(lint.stdout)
        done = run(command + ["--suppressions", str(suppressions), str(converted), str(new)])
    if done.returncode & 3:
        raise SystemExit(f"abidiff failed: {done.stdout}{done.stderr}")
    if done.returncode:
        return done.stdout or "abidiff reported a change"
    return growth_errors(old, new, growables) if newer_minor else ""


def members(path, struct):
    """[(name, offset, type)] of a struct in an abidw file, its types spelled
    out (type ids differ from file to file), or None when it is not there."""
    elements = list(ET.parse(path).iter())
    by_id = {e.get("id"): e for e in elements if e.get("id")}

    def spell(type_id, depth=0):
        e = by_id.get(type_id)
        if e is None or depth > 20:
            return type_id or "void"
        inner = lambda: spell(e.get("type-id"), depth + 1)
        if e.tag == "pointer-type-def":
            return inner() + "*"
        if e.tag == "qualified-type-def":
            return ("const " if e.get("const") == "yes" else "") + inner()
        if e.tag == "function-type":
            params = [spell(p.get("type-id"), depth + 1) for p in e if p.tag == "parameter"]
            result = [spell(r.get("type-id"), depth + 1) for r in e if r.tag == "return"]
            return f"({', '.join(params)}) -> {''.join(result)}"
        return e.get("name") or e.tag
    for e in elements:
        if e.tag == "class-decl" and e.get("name") == struct and e.get("is-declaration-only") != "yes":
            return [(v.get("name"), d.get("layout-offset-in-bits"), spell(v.get("type-id")))
                    for d in e if d.tag == "data-member" for v in d if v.tag == "var-decl"]
    return None


def growth_errors(old, new, growables):
    """A growable struct may only gain fields at its end: its old fields are
    a prefix of its new ones, names, offsets and types (abidiff's
    has_data_member_inserted_at suppression also lets a reorder through)."""
    errors = []
    for struct in growables:
        before, after = members(old, struct), members(new, struct)
        if before is not None and after is not None and after[:len(before)] != before:
            changed = next(f"{b} became {a}" for b, a in zip(before, after + [None] * len(before))
                           if b != a)
            errors.append(f"struct {struct} changed other than at its end: field {changed}")
    return "\n".join(errors)


def current_parts(abi, include, library, cc, tmp):
    """{part: .abi file} of the tree as it is now."""
    header_name, _, _ = ABIS[abi]
    header = include / "tsbridge" / header_name
    probe = compile_library(cc, probe_source(header_name, header.read_text()), include,
                            tmp / f"{abi}_probe.so")
    parts = {"types": abidw(probe, header, tmp / f"{abi}.types.abi")}
    if abi == "tsbridge":
        if library is None:
            raise SystemExit("the tsbridge ABI needs --library")
        parts["library"] = abidw(library, header, tmp / f"{abi}.library.abi")
    return parts


def stored(abi, baselines):
    """(major, minor), {part: path} of the stored baseline of this ABI."""
    found = {}
    for path in sorted(baselines.glob(f"{abi}-*.abi")):
        match = BASELINE.match(path.name)
        if match and match.group(1) == abi:
            found.setdefault((int(match.group(2)), int(match.group(3))), {})[match.group(4)] = path
    if len(found) != 1:
        raise SystemExit(f"{baselines}: expected one {abi} baseline version, found "
                         f"{sorted(found) or 'none'}")
    return next(iter(found.items()))


def check(abi, include, library, baselines, cc):
    """The errors of the tree against its baseline; [] when it keeps the rule."""
    header_name, prefix, listed = ABIS[abi]
    text = (include / "tsbridge" / header_name).read_text()
    now = header_version(text, prefix)
    then, base = stored(abi, baselines)
    shown = f"{header_name} is {now[0]}.{now[1]}, the baseline {then[0]}.{then[1]}"
    if now[0] != then[0]:
        return [f"{shown}: a new major needs a new baseline (scripts/abi-baseline.sh)"]
    if now[1] < then[1]:
        return [f"{shown}: the header is older than its baseline"]
    errors = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        parts = current_parts(abi, include, library, cc, tmp)
        for part in sorted(set(base) | set(parts)):
            if part not in base or part not in parts:
                errors.append(f"{abi} {part}: no baseline or nothing to compare")
                continue
            report = abidiff(base[part], parts[part], now[1] > then[1],
                             growable(text, listed), opaque(text), tmp)
            if report:
                rule = ("only additions, and fields at the end of a growable struct, "
                        "are allowed in a new minor" if now[1] > then[1] else
                        "the same minor as the baseline allows no change: an addition "
                        f"needs a minor bump ({prefix}_MINOR)")
                errors.append(f"{abi} {part} ABI changed ({shown}; {rule}):\n{report}")
    return errors


def write_baseline(abi, include, library, baselines, cc):
    header_name, prefix, _ = ABIS[abi]
    major, minor = header_version((include / "tsbridge" / header_name).read_text(), prefix)
    with tempfile.TemporaryDirectory() as tmp:
        parts = current_parts(abi, include, library, cc, Path(tmp))
        for old in baselines.glob(f"{abi}-*.abi"):
            old.unlink()
        for part, path in parts.items():
            target = baselines / f"{abi}-{major}.{minor}.{part}.abi"
            target.write_text(path.read_text())
            print(f"wrote {target}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("command", nargs="?", choices=["check", "baseline"])
    parser.add_argument("abi", nargs="?", choices=sorted(ABIS))
    parser.add_argument("--include", type=Path, required=True)
    parser.add_argument("--library", type=Path)
    parser.add_argument("--baselines", type=Path)
    parser.add_argument("--cc", default="cc")
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    if args.self_test:
        from abi_check_selftest import self_test
        return self_test(args.include, args.cc)
    if args.command == "baseline":
        write_baseline(args.abi, args.include, args.library, args.baselines, args.cc)
        return 0
    errors = check(args.abi, args.include, args.library, args.baselines, args.cc)
    (major, minor), _ = stored(args.abi, args.baselines)
    print("\n".join(errors) or f"{args.abi}: the ABI keeps the rule against its "
                              f"{major}.{minor} baseline")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
