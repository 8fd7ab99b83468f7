#!/usr/bin/env bash
# The sanitizer stage (docs/reliability.md): the test suite built with clang
# under AddressSanitizer (with LeakSanitizer) and UndefinedBehaviorSanitizer,
# plus the libFuzzer targets, in build-asan/; then ctest on that build.
# scripts/test.sh runs it after the main stage.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
install_missing
BUILD="${TSB_ASAN_BUILD_DIR:-$ROOT/build-asan}"
# Lean: no benchmarks, no ThreadSanitizer copy; the command line is built
# for tsb serve's tests and fuzz target (its other tests run in the main
# stage only: tests/CMakeLists.txt).
# The Python host is built: its tests run in Debian's uninstrumented
# interpreter with the ASan runtime preloaded (cmake/sanitize.cmake), with
# fewer differential examples and a shorter soak than the main stage; the R
# host's tests and a short R soak likewise in Debian's R (hosts/r/tests/ctest/r.cmake).
# -O1 and line tables only: readable stacks at a fraction of the compile time.
# No precompiled headers: a clang PCH embeds its clone's absolute paths, so
# ccache would miss every unit that uses one in a new clone
# (docs/platforms.md, "Build cost").
configure_and_build -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DTSB_PRECOMPILE_HEADERS=OFF \
  "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only -DNDEBUG" \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only -DNDEBUG" \
  "-DTSB_SANITIZE=address;undefined" -DTSB_FUZZ=ON \
  -DTSB_BUILD_BENCH=OFF -DTSB_BUILD_APPS=ON -DTSB_TSAN_TESTS=OFF \
  -DTSB_BUILD_PYTHON=ON -DTSB_DIFF_EXAMPLES=10 -DTSB_SOAK_OPS=5000

export_sanitizer_options
cd "$BUILD"
# Not run here: checks of sources, symbols or the compiler itself, which no
# sanitizer instruments, and pip installing the package (docs/reliability.md).
ctest --output-on-failure -j "${TSB_JOBS:-2}" -E '^(no_escape|c99_header|python_includes|python_install)$'
