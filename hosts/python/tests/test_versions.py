"""Versions that clash (docs/install.md, "When versions clash"): archives and
a .pt2 package whose records say another PyTorch wrote them, and a plugin
built against another LibTorch, are refused with both versions named
(tests/core/runtime/make_version_fixtures.py writes them)."""
import json
import os
import pathlib

import pytest

import tsbridge

FIXTURES = pathlib.Path(os.environ.get("TSB_VERSION_FIXTURES", "/nonexistent"))
PLUGIN = os.environ.get("TSB_OTHER_TORCH_PLUGIN", "")
pytestmark = pytest.mark.skipif(not (FIXTURES / "versions.json").exists(),
                                reason="TSB_VERSION_FIXTURES not set (run by ctest)")
V = json.loads((FIXTURES / "versions.json").read_text()) if FIXTURES.exists() else {}


def refusal(call, *args):
    with pytest.raises(tsbridge.UnsupportedError) as e:
        call(*args)
    return str(e.value)


def test_a_newer_file_format_names_both_versions():
    path = FIXTURES / "newer_format.pt"
    assert refusal(tsbridge.load, str(path)) == (
        f'cannot load module "{path}": written by a newer PyTorch in TorchScript file '
        f'format {V["newer_format"]} (the archive records no PyTorch version); this is '
        f'LibTorch {V["libtorch"]}, which reads format versions up to 10')


def test_a_newer_file_format_from_bytes():
    data = (FIXTURES / "newer_format.pt").read_bytes()
    message = refusal(tsbridge.load, data)
    assert f"cannot load a module from {len(data)} bytes: written by a newer PyTorch" in message
    assert f'this is LibTorch {V["libtorch"]}' in message


def test_an_unknown_torch_operator_names_this_libtorch():
    path = FIXTURES / "unknown_op.pt"
    assert refusal(tsbridge.load, str(path)) == (
        f'cannot load module "{path}": its code calls the operator aten::tsb_newer_op, which '
        f'LibTorch {V["libtorch"]} does not have: another PyTorch release wrote it (the '
        "archive records TorchScript file format 3 and no PyTorch version)")


def test_a_package_compiled_by_another_release_names_both():
    if V["newer_torch"] is None:  # LibTorch 1.13: every package names the release it needs
        path = FIXTURES / "any.pt2"
        path.write_text("never read")
        message = refusal(tsbridge.load, str(path))
        assert f'needs LibTorch 2.6 or newer, and this library was built with LibTorch ' \
               f'{V["libtorch"]}' in message, message
        return
    path, theirs, ours = FIXTURES / "newer_torch.pt2", V["newer_torch"], V["libtorch"]
    assert refusal(tsbridge.load, str(path)) == (
        f'cannot load "{path}": compiled by PyTorch {theirs} (its model "model" needs '
        f"libtorch_cpu.so.{theirs}); this is LibTorch {ours}: compile the package again with "
        f"PyTorch {ours}")


def test_a_plugin_built_against_another_libtorch_names_both():
    message = refusal(tsbridge.load_plugin, PLUGIN)
    assert message.startswith(
        f"cannot load plugin '{PLUGIN}': built against LibTorch {V['other_torch_plugin']}, "
        f"this tsbridge against LibTorch {V['libtorch']} (platform \""), message
    assert message.endswith(f"rebuild the plugin against this tsbridge and LibTorch "
                            f"{V['libtorch']}"), message


def test_a_plugin_built_against_another_sdk_names_both():
    # Beside other_torch: the fixture an SDK before ABI 2 built.
    plugin = pathlib.Path(PLUGIN).parents[1] / "old_sdk" / "libfixture_old_sdk.so"
    message = refusal(tsbridge.load_plugin, str(plugin))
    assert message.startswith(
        f"cannot load plugin '{plugin}': built against the tsbridge SDK ABI 1 (the C++ types "
        "shared with plugins: KindCodec, TypeInfo), this tsbridge needs SDK ABI "), message
