#!/usr/bin/env bash
# Installs what is missing, builds everything, and runs the whole test suite:
# the main build, then the sanitizer stage (scripts/sanitize.sh).
# TSB_SKIP_SANITIZE=1 runs the main stage alone (.ci/run does so in Debian 13:
# the sanitizer stage runs once, on Debian 12; docs/platforms.md).
# TSB_PACKAGE_STAGE=1 makes the main stage the package build instead
# (scripts/package.sh: the same suite, run by debian/rules), followed by the
# clean-room test of its packages (scripts/clean-room.sh; TSB_CLEAN_ROOM=0
# skips it); .ci/run does so on every release, with the clean room on Debian
# 12 only (docs/install.md).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
install_missing
start=$SECONDS
if [[ "${TSB_PACKAGE_STAGE:-0}" == 1 ]]; then
  bash "$ROOT/scripts/package.sh"
  echo "tsbridge: main stage (the package build and its tests) passed in $((SECONDS - start)) s ($PRETTY_NAME)"
  if [[ "${TSB_CLEAN_ROOM:-1}" == 1 ]]; then
    start=$SECONDS
    bash "$ROOT/scripts/clean-room.sh"
    echo "tsbridge: clean-room test passed in $((SECONDS - start)) s ($PRETTY_NAME)"
  fi
else
  configure_and_build
  echo "tsbridge: main stage built in $((SECONDS - start)) s ($PRETTY_NAME)"
  start=$SECONDS
  (cd "$BUILD" && ctest --output-on-failure -j "${TSB_JOBS:-2}")
  echo "tsbridge: main stage passed in $((SECONDS - start)) s of testing ($PRETTY_NAME)"
fi
if [[ "${TSB_SKIP_SANITIZE:-0}" == 1 ]]; then
  echo "tsbridge: sanitizer stage skipped (TSB_SKIP_SANITIZE=1)"
else
  start=$SECONDS
  bash "$ROOT/scripts/sanitize.sh"
  echo "tsbridge: sanitizer stage passed in $((SECONDS - start)) s (build and tests)"
fi
