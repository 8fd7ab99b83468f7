#!/usr/bin/env bash
# Installs what is missing, builds tsbridge, and runs the demos: the example
# model from the command line, the C demo, and objects in a JPEG from the
# command line, Python and C (examples/vision, needs python3-torchvision).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
install_missing
cmake -S "$ROOT" -B "$BUILD" >/dev/null
cmake --build "$BUILD" -j "${TSB_JOBS:-2}" --target tsb_demo tsb tsb_example_model \
  tsb_vision_detect tsbridge_python
"$BUILD/bin/tsb" demo
"$BUILD/examples/tsb_demo"
bash "$ROOT/examples/vision/run.sh" "$BUILD"
