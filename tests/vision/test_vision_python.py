"""torchvision models called by the Python host in a process that never
imports torchvision: tsbridge.load_library("torchvision") brings the
operators, tsbridge.load the scripted modules; outputs are compared with
PyTorch's own run (compare_outputs.py states the tolerance).

Needs TSB_VISION_MODELS, the directory make_vision_models.py wrote.
"""
import os
import sys

import pytest
import torch

import tsbridge

sys.path.insert(0, os.path.dirname(__file__))
from compare_outputs import compare  # noqa: E402

MODELS = os.environ["TSB_VISION_MODELS"]


def path(name):
    return os.path.join(MODELS, name)


def test_a_detector_needs_its_library_and_says_so():
    if any(lib.name == "torchvision" for lib in tsbridge.libraries()):
        pytest.skip("torchvision's library is already loaded in this process")
    with pytest.raises(tsbridge.Error, match=r"calls the operator torchvision::nms, which is not "
                       r"registered: load the operator library 'torchvision' first"):
        tsbridge.load(path("fasterrcnn.pt"))


def test_load_library_by_name():
    library = tsbridge.load_library("torchvision")
    assert library.name == "torchvision"
    assert "torchvision::nms" in library.operators
    names = [lib.name for lib in tsbridge.libraries()]
    assert names.count("torchvision") == 2  # _C and image
    again = tsbridge.load_library("torchvision")  # a no-op
    assert again.id == library.id and len(tsbridge.libraries()) == len(names)


def test_load_library_errors():
    with pytest.raises(tsbridge.Error, match="cannot find the operator library 'torchvisoin': "
                       "looked for "):
        tsbridge.load_library("torchvisoin")
    with pytest.raises(tsbridge.Error, match="cannot load operator library '/nonexistent.so': "
                       "no such file"):
        tsbridge.load_library("/nonexistent.so")


@pytest.mark.parametrize("name", ["resnet18", "lraspp", "fasterrcnn", "ssdlite"])
def test_model_matches_pytorch(name):
    tsbridge.load_library("torchvision")
    model = tsbridge.load(path(name + ".pt"))
    image = torch.load(path("photo.tensor.pt"), weights_only=False)
    inputs = [image] if name in ("fasterrcnn", "ssdlite") else image.unsqueeze(0)
    with torch.no_grad():
        compare(torch.load(path(name + ".expected.pt"), weights_only=False), model(inputs))
    assert "torchvision" not in sys.modules


def test_image_operators_from_python():
    tsbridge.load_library("torchvision")
    data = tsbridge.ops.image.read_file(path("photo.png"))
    image = tsbridge.ops.image.decode_image(data, 3)
    assert image.dtype == torch.uint8 and tuple(image.shape) == (3, 240, 320)
