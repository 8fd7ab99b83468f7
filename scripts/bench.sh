#!/usr/bin/env bash
# Installs what is missing, builds, runs every bench binary and prints the
# table of ratios that docs/benchmarks.md reports.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
install_missing
configure_and_build -DTSB_BUILD_BENCH=ON
# Fixtures too slow for every build (the .pt2 packages of aoti_benchmark).
cmake --build "$BUILD" --target bench_fixtures
out="$BUILD/bench-results"
mkdir -p "$out"
for binary in "$BUILD"/bench/*_benchmark; do
  name=$(basename "$binary")
  echo "running $name" >&2
  # Every repetition kept, baseline and generic interleaved at random, so
  # that load drifts hit both alike; ratios.py pairs the repetitions and
  # reports their spread.
  "$binary" --benchmark_repetitions=12 --benchmark_enable_random_interleaving=true \
    --benchmark_out="$out/$name.json" --benchmark_out_format=json >/dev/null
done
/usr/bin/python3 "$ROOT/bench/ratios.py" --markdown "$out"/*.json
# The Python host against PyTorch's own TorchScript calls (docs/python.md).
if [[ -d "$BUILD/python/tsbridge" ]]; then
  aoti=()
  [[ -d "$BUILD/bench/aoti_packages" ]] && aoti=(--aoti "$BUILD/bench/aoti_packages")
  PYTHONPATH="$BUILD/python" /usr/bin/python3 "$ROOT/bench/python_host_bench.py" --markdown \
    "${aoti[@]}"
fi
# The R host against the C ABI from C (docs/r.md); needs the R package
# installed into the build (ctest -R r_install).
if command -v Rscript >/dev/null && [[ -d "$BUILD/tests/r-lib/tsbridge" ]]; then
  R_LIBS="$BUILD/tests/r-lib" Rscript "$ROOT/bench/r_host_bench.R" \
    "$BUILD/bench/r_host_c_baseline" --markdown
fi
# tsb serve against FastAPI + uvicorn serving the same models, and a no-op
# infer against the C call plus an empty HTTP round trip (docs/serve.md).
if [[ -x "$BUILD/bin/tsb" && -x "$BUILD/bench/serve_noop_c_baseline" ]]; then
  /usr/bin/python3 "$ROOT/bench/serve_bench.py" --tsb "$BUILD/bin/tsb" \
    --c-baseline "$BUILD/bench/serve_noop_c_baseline"
fi
