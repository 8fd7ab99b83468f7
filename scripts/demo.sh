#!/usr/bin/env bash
# Installs what is missing, builds tsbridge, and runs the C demo.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
install_missing
cmake -S "$ROOT" -B "$BUILD" >/dev/null
cmake --build "$BUILD" -j "${TSB_JOBS:-2}" --target tsb_demo tsb tsb_example_model
"$BUILD/bin/tsb"
"$BUILD/examples/tsb_demo"
