"""Versions that clash, from tsb (docs/install.md, "When versions clash"):
archives and a .pt2 package whose records say another PyTorch wrote them
(tests/core/runtime/make_version_fixtures.py), and a plugin built against
another LibTorch, are refused on one line naming both versions.

Usage: cli_versions_test.py TSB VERSION_FIXTURES OTHER_TORCH_PLUGIN"""
import json
import pathlib
import sys

from tsb_run import run

tsb, fixtures, plugin = sys.argv[1], pathlib.Path(sys.argv[2]), sys.argv[3]
v = json.loads((fixtures / "versions.json").read_text())
ours = v["libtorch"]


def refused(*args):
    out = run(tsb, *args, ok=False)
    assert out.startswith("tsb: ") and out.count("\n") == 1, out
    print(out, end="")
    return out[len("tsb: "):].rstrip("\n")


path = fixtures / "newer_format.pt"
assert refused("inspect", path) == (
    f'cannot load module "{path}": written by a newer PyTorch in TorchScript file format '
    f'{v["newer_format"]} (the archive records no PyTorch version); this is LibTorch {ours}, '
    "which reads format versions up to 10")

path = fixtures / "unknown_op.pt"
assert refused("run", path, "--args", "[1]") == (
    f'cannot load module "{path}": its code calls the operator aten::tsb_newer_op, which '
    f"LibTorch {ours} does not have: another PyTorch release wrote it (the archive records "
    "TorchScript file format 3 and no PyTorch version)")

if v["newer_torch"] is None:  # LibTorch 1.13: a package names the release it needs
    path = fixtures / "any.pt2"
    path.write_text("never read")
    message = refused("inspect", path)
    assert f"needs LibTorch 2.6 or newer, and this library was built with LibTorch {ours}" \
        in message, message
else:
    path, theirs = fixtures / "newer_torch.pt2", v["newer_torch"]
    assert refused("inspect", path) == (
        f'cannot load "{path}": compiled by PyTorch {theirs} (its model "model" needs '
        f"libtorch_cpu.so.{theirs}); this is LibTorch {ours}: compile the package again with "
        f"PyTorch {ours}")

message = refused("--plugin", plugin, "plugins")
assert message.startswith(
    f"cannot load plugin '{plugin}': built against LibTorch {v['other_torch_plugin']}, this "
    f'tsbridge against LibTorch {ours} (platform "'), message
assert message.endswith(f"rebuild the plugin against this tsbridge and LibTorch {ours}"), message

# Beside it, the fixture built against an SDK before ABI 2 (tests/core/plugins/loader.cmake).
old_sdk = pathlib.Path(plugin).parents[1] / "old_sdk" / "libfixture_old_sdk.so"
message = refused("--plugin", old_sdk, "plugins")
assert message.startswith(f"cannot load plugin '{old_sdk}': built against the tsbridge SDK ABI 1 "
                          "(the C++ types shared with plugins: KindCodec, TypeInfo), this "
                          "tsbridge needs SDK ABI "), message
