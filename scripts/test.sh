#!/usr/bin/env bash
# Installs what is missing, builds everything, and runs the whole test suite.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
install_missing
configure_and_build
cd "$BUILD"
ctest --output-on-failure -j "${TSB_JOBS:-2}"
