"""Objects in a JPEG, from Python, without torchvision in this process.

Usage: PYTHONPATH=build/python /usr/bin/python3 detect.py detector.pt photo.jpg

tsbridge loads torchvision's operator library (nms, roi_align, and the image
decoders) by name; the picture is decoded by torchvision's own
image::decode_image operator, called through tsbridge.
"""
import sys

import tsbridge


def main(model_path, image_path):
    tsbridge.load_library("torchvision")
    detector = tsbridge.load(model_path)
    data = tsbridge.ops.image.read_file(image_path)
    image = tsbridge.ops.image.decode_image(data, 3) / 255  # RGB, float32 in [0, 1]
    losses, detections = detector([image])
    found = detections[0]
    print(f"{len(found['scores'])} detections in {image_path} ({tuple(image.shape)})")
    for box, label, score in list(zip(found["boxes"], found["labels"], found["scores"]))[:3]:
        print(f"  label {int(label)} score {float(score):.4f} box {[round(float(v), 1) for v in box]}")
    assert "torchvision" not in sys.modules


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
