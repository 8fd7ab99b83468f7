#!/usr/bin/env bash
# Installs what is missing, builds everything, and runs the whole test suite:
# the main build, then the sanitizer stage (scripts/sanitize.sh).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
install_missing
configure_and_build
start=$SECONDS
(cd "$BUILD" && ctest --output-on-failure -j "${TSB_JOBS:-2}")
echo "tsbridge: main stage passed in $((SECONDS - start)) s of testing"
# Second stage: ASan+UBSan+LSan and the fuzz targets (scripts/sanitize.sh).
# TSB_SKIP_SANITIZE=1 skips it locally; CI (CI=true) always runs it.
if [[ "${TSB_SKIP_SANITIZE:-0}" == 1 && "${CI:-}" != true ]]; then
  echo "tsbridge: sanitizer stage skipped (TSB_SKIP_SANITIZE=1)"
else
  start=$SECONDS
  bash "$ROOT/scripts/sanitize.sh"
  echo "tsbridge: sanitizer stage passed in $((SECONDS - start)) s (build and tests)"
fi
