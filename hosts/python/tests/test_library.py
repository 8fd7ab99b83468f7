"""tsbridge.load_library: operator libraries by path and by name, the
errors, and the hint when a module calls an operator nobody registered."""
import pytest

import tsbridge


def test_a_name_not_found_says_where_it_looked():
    with pytest.raises(tsbridge.NotFoundError,
                       match="cannot find the operator library 'torchvisoin': looked for "):
        tsbridge.load_library("torchvisoin")


def test_missing_file():
    with pytest.raises(tsbridge.NotFoundError,
                       match="cannot load operator library '/nonexistent/libops.so': no such file"):
        tsbridge.load_library("/nonexistent/libops.so")


def test_not_a_shared_library_changes_nothing(tmp_path):
    fake = tmp_path / "libfake.so"
    fake.write_text("not an ELF file, long enough for the loader to read its header\n" * 4)
    before = len(tsbridge.libraries())
    with pytest.raises(tsbridge.Error, match=f"cannot load operator library '{fake}': "):
        tsbridge.load_library(fake)
    assert len(tsbridge.libraries()) == before


def test_an_unregistered_operator_names_its_library():
    with pytest.raises(tsbridge.Error, match="calls the operator nosuchlib::op, which is not "
                       "registered: load the library that registers the nosuchlib:: operators"):
        tsbridge.compile("def f(self, x: Tensor) -> Tensor:\n"
                         "    return ops.nosuchlib.op(x)\n")


def test_a_missing_library_is_advised_in_python_words():
    with pytest.raises(tsbridge.Error) as caught:
        tsbridge.compile("def f(self, x: Tensor) -> Tensor:\n    return ops.nosuchlib.op(x)\n")
    message = str(caught.value)
    assert message.endswith('operators first (tsbridge.load_library("PATH.so"))'), message
    assert caught.value.detail == message
    assert "tsb_library_load" not in message and "tsb --library" not in message


def test_torchaudio_by_name():
    try:
        library = tsbridge.load_library("torchaudio")
    except tsbridge.NotFoundError as e:
        pytest.skip(f"python3-torchaudio is not installed: {e}")
    assert library.name == "torchaudio"
    assert library.path.endswith("/torchaudio/lib/libtorchaudio.so")
    assert "torchaudio::_lfilter" in library.operators


def test_torchvision_by_name_twice():
    try:
        first = tsbridge.load_library("torchvision")
    except tsbridge.NotFoundError as e:
        pytest.skip(f"python3-torchvision is not installed: {e}")
    again = tsbridge.load_library("torchvision")
    assert (again.id, again.path) == (first.id, first.path)
    assert "torchvision::roi_align" in first.operators
    assert tsbridge.ops.torchvision.nms is not None
