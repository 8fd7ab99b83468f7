"""Scripts torchvision models and makes their input and PyTorch's outputs.

Usage: /usr/bin/python3 make_vision_models.py OUT_DIR

Writes, into OUT_DIR: photo.jpg and photo.png (a small synthetic picture,
encoded by torchvision.io), and for each model NAME: NAME.pt (scripted with
torch.jit.script, weights=None, seeded: nothing is downloaded) and
NAME.expected.pt (torch.save of the scripted module's own output on the
picture, decoded by torchvision.io and scaled to [0, 1] as
convert_image_dtype does). The tests then run NAME.pt in processes that never
import torchvision (tsb run, the Python host) and compare.
"""
import os
import sys

import torch
import torchvision
from torchvision.io import ImageReadMode, decode_image, encode_jpeg, encode_png, read_file
from torchvision.models import resnet18
from torchvision.models.detection import (fasterrcnn_mobilenet_v3_large_320_fpn,
                                          ssdlite320_mobilenet_v3_large)
from torchvision.models.segmentation import lraspp_mobilenet_v3_large

# A classifier, a segmentation model and two detection models; the input is
# small (240 x 320) so that CI stays quick.
MODELS = {
    "resnet18": lambda: resnet18(weights=None),
    "lraspp": lambda: lraspp_mobilenet_v3_large(weights=None, weights_backbone=None),
    "fasterrcnn": lambda: fasterrcnn_mobilenet_v3_large_320_fpn(
        weights=None, weights_backbone=None, box_score_thresh=0.0),
    "ssdlite": lambda: ssdlite320_mobilenet_v3_large(weights=None, weights_backbone=None),
}


def picture(height=240, width=320):
    """A picture with some structure: gradients, a disc and a bar (uint8 CHW)."""
    y = torch.linspace(0, 1, height).view(-1, 1).expand(height, width)
    x = torch.linspace(0, 1, width).view(1, -1).expand(height, width)
    disc = (((x - 0.35) ** 2 + (y - 0.5) ** 2) < 0.04).float()
    bar = ((x > 0.6) & (x < 0.9) & (y > 0.2) & (y < 0.4)).float()
    rgb = torch.stack([0.2 + 0.6 * x + 0.2 * disc, 0.8 * y * (1 - bar) + bar, 0.5 + 0.5 * disc - 0.3 * y])
    return (rgb.clamp(0, 1) * 255).round().to(torch.uint8)


def write_pictures(out):
    image = picture()
    with open(os.path.join(out, "photo.jpg"), "wb") as f:
        f.write(encode_jpeg(image, quality=90).numpy().tobytes())
    with open(os.path.join(out, "photo.png"), "wb") as f:
        f.write(encode_png(image).numpy().tobytes())


def decoded(path):
    """What tsb's {"image": path} stands for: RGB, float32 in [0, 1]."""
    return decode_image(read_file(path), ImageReadMode.RGB).div(255)


def model_input(name, image):
    # Classifier and segmentation models take a batch; detection models a
    # list of images.
    return [image] if name in ("fasterrcnn", "ssdlite") else image.unsqueeze(0)


def main(out):
    os.makedirs(out, exist_ok=True)
    write_pictures(out)
    image = decoded(os.path.join(out, "photo.jpg"))
    torch.save(image, os.path.join(out, "photo.tensor.pt"))
    for name, make in MODELS.items():
        torch.manual_seed(0)
        scripted = torch.jit.script(make().eval())
        path = os.path.join(out, name + ".pt")
        scripted.save(path)
        with torch.no_grad():
            expected = torch.jit.load(path)(model_input(name, image))
        torch.save(expected, os.path.join(out, name + ".expected.pt"))
    print(f"torchvision {torchvision.__version__}: {', '.join(MODELS)} in {out}")


if __name__ == "__main__":
    main(sys.argv[1])
