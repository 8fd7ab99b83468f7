#!/usr/bin/env bash
# The figures the conversion goals are measured with (docs/benchmarks.md, "The
# conversion goals on three releases"): generic ÷ static paired, the Python
# host against PyTorch, the R host against C, for one build directory.
#   bash scripts/bench_goals.sh [BUILD]        (default: build)
#   bash scripts/in-debian.sh 13 bash scripts/bench_goals.sh build-trixie
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${1:-build}"
cd "$ROOT"
cmake --build "$BUILD" -j2 --target generic_vs_static_benchmark r_host_c_baseline \
  tsbridge_python tsbridge_python_torch tsbridge_python_package
(cd "$BUILD" && ctest -R '^r_install$' >/dev/null)
# The commit, also where git is absent (a Debian root).
head=$(cat .git/HEAD)
[[ $head == ref:* ]] && head=$(cat ".git/${head#ref: }" 2>/dev/null || grep " ${head#ref: }\$" .git/packed-refs | cut -d' ' -f1)
echo "commit ${head:0:7}, load: $(cut -d' ' -f1-3 /proc/loadavg)"
OMP_WAIT_POLICY=PASSIVE "$BUILD/bench/generic_vs_static_benchmark" --paired --paired_markdown
PYTHONPATH="$BUILD/python" /usr/bin/python3 bench/python_host_bench.py --markdown
R_LIBS="$BUILD/tests/r-lib" Rscript bench/r_host_bench.R "$BUILD/bench/r_host_c_baseline" --markdown
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
