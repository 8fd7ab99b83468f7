#!/usr/bin/env bash
# The figures the conversion goals are measured with (docs/benchmarks.md, "The
# conversion goals on three releases"): generic ÷ static paired, the Python
# host against PyTorch, the R host against C, operator and method calls
# against LibTorch's own, and on LibTorch 2.6 or newer the .pt2 packages
# (C against the loader's run, Python against PyTorch's caller), for one
# build directory.
#   bash scripts/bench_goals.sh [BUILD]        (default: build)
#   bash scripts/in-debian.sh 13 bash scripts/bench_goals.sh build-trixie
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${1:-build}"
cd "$ROOT"
cmake --build "$BUILD" -j2 --target generic_vs_static_benchmark r_host_c_baseline \
  runtime_benchmark tsbridge_python tsbridge_python_torch tsbridge_python_package
aoti=""
targets="$(cmake --build "$BUILD" --target help 2>/dev/null || true)"
if grep -qE '^(\.\.\. )?aoti_benchmark(:|$)' <<<"$targets"; then
  cmake --build "$BUILD" -j2 --target bench_fixtures aoti_benchmark  # the packages: ~1 min each
  aoti="$BUILD/bench/aoti_packages"
fi
(cd "$BUILD" && ctest -R '^r_install$' >/dev/null)
# The commit, also where git is absent (a Debian root).
head=$(cat .git/HEAD)
[[ $head == ref:* ]] && head=$(cat ".git/${head#ref: }" 2>/dev/null || grep " ${head#ref: }\$" .git/packed-refs | cut -d' ' -f1)
echo "commit ${head:0:7}, load: $(cut -d' ' -f1-3 /proc/loadavg)"
OMP_WAIT_POLICY=PASSIVE "$BUILD/bench/generic_vs_static_benchmark" --paired --paired_markdown
PYTHONPATH="$BUILD/python" /usr/bin/python3 bench/python_host_bench.py --markdown
R_LIBS="$BUILD/tests/r-lib" Rscript bench/r_host_bench.R "$BUILD/bench/r_host_c_baseline" --markdown
rt="$(mktemp)"
OMP_WAIT_POLICY=PASSIVE "$BUILD/bench/runtime_benchmark" --benchmark_repetitions=5 \
  --benchmark_report_aggregates_only=true --benchmark_out="$rt" --benchmark_out_format=json >/dev/null 2>&1
/usr/bin/python3 bench/ratios.py --markdown "$rt"
rm -f "$rt"
if [[ -n $aoti ]]; then
  OMP_WAIT_POLICY=PASSIVE "$BUILD/bench/aoti_benchmark" --paired --paired_markdown
  PYTHONPATH="$BUILD/python" /usr/bin/python3 bench/python_host_bench.py --markdown --only none --aoti "$aoti"
fi
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
