"""Makes the example's model and picture, with PyTorch and torchvision.

Usage: /usr/bin/python3 make_detector.py OUT_DIR

detector.pt: torchvision's fasterrcnn_mobilenet_v3_large_320_fpn, scripted
(weights=None, seeded: nothing is downloaded, so its detections mean
nothing; box_score_thresh=0 so that it reports its 100 best boxes anyway).
photo.jpg: a 240 x 320 synthetic picture encoded by torchvision.io.
With real weights (torchvision's COCO weights, downloaded once), the same
commands detect real objects.
"""
import os
import sys

import torch
from torchvision.io import encode_jpeg
from torchvision.models.detection import fasterrcnn_mobilenet_v3_large_320_fpn


def picture(height=240, width=320):
    y = torch.linspace(0, 1, height).view(-1, 1).expand(height, width)
    x = torch.linspace(0, 1, width).view(1, -1).expand(height, width)
    disc = (((x - 0.3) ** 2 + (y - 0.5) ** 2) < 0.03).float()
    rgb = torch.stack([0.3 + 0.7 * disc, 0.4 + 0.4 * y, 0.8 - 0.5 * x])
    return (rgb.clamp(0, 1) * 255).round().to(torch.uint8)


def main(out):
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    model = fasterrcnn_mobilenet_v3_large_320_fpn(
        weights=None, weights_backbone=None, box_score_thresh=0.0).eval()
    torch.jit.script(model).save(os.path.join(out, "detector.pt"))
    with open(os.path.join(out, "photo.jpg"), "wb") as f:
        f.write(encode_jpeg(picture(), quality=90).numpy().tobytes())
    print(f"wrote {out}/detector.pt and {out}/photo.jpg")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
