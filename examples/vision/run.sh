#!/usr/bin/env bash
# Objects in a JPEG from three hosts, none of which imports torchvision:
# the command line, Python and C. PyTorch + torchvision only make the model.
# Usage: examples/vision/run.sh [BUILD_DIR] [WORK_DIR]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="$(cd "${1:-$here/../../build}" && pwd)"
work="${2:-$build/vision_example}"
mkdir -p "$work"
cd "$work"

/usr/bin/python3 "$here/make_detector.py" .
echo "--- tsb (the command line)"
"$build/bin/tsb" --library torchvision run detector.pt --args '[[{"image": "photo.jpg"}]]' --summary
echo "--- Python"
PYTHONPATH="$build/python" /usr/bin/python3 "$here/detect.py" detector.pt photo.jpg
echo "--- C"
"$build/examples/tsb_vision_detect" detector.pt photo.jpg
