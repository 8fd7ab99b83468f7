#!/usr/bin/env bash
# A long local fuzz run of one target, then a leak check of what it kept
# (docs/reliability.md, "Fuzzing"). Needs build-asan/ (scripts/sanitize.sh).
#
#   bash scripts/fuzz_long.sh TARGET RUNS [SECONDS]
#
# TARGET is json, type_string, pickle, abi_sequence, module_load,
# host_conversion or kit_build; the run stops after RUNS executions or
# SECONDS (default 3600); RUNS 0 runs only the leak check of the corpus. The sanitizer
# stage's options apply, with two changes, both for throughput:
#  - leak detection is off while fuzzing (LeakSanitizer scans LibTorch's
#    whole heap whenever an input allocates more than it frees: most of the
#    time went there; libFuzzer's -detect_leaks=0 too, or it still runs such
#    an input twice to look), and
#  - the run is in fork mode: a LibTorch leak the suppressions name (about
#    150 KB per module whose code fails to compile) would otherwise fill the
#    process; an out-of-memory or a timeout is kept in artifacts/ and the
#    run goes on, a crash stops it.
# Then every input of the corpus runs again, one at a time, with leak
# detection on and the slow unwinder (so lsan.supp's LibTorch frames show).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
BUILD="${TSB_ASAN_BUILD_DIR:-$ROOT/build-asan}"
target=$1 runs=$2 seconds=${3:-3600}
bin="$BUILD/tests/tsb_fuzz_$target"
fuzz="$BUILD/tests/fuzz"
corpus="$fuzz/corpus/$target"
[[ -x "$bin" ]] || { echo "fuzz_long: no $bin (bash scripts/sanitize.sh builds it)" >&2; exit 2; }
mkdir -p "$corpus" "$fuzz/artifacts"
export_sanitizer_options
export ASAN_OPTIONS="${ASAN_OPTIONS/detect_leaks=1/detect_leaks=0}"
cd "$BUILD/tests"
if (( runs > 0 )); then
  "$bin" -fork=1 -detect_leaks=0 -ignore_ooms=1 -ignore_timeouts=1 -runs="$runs" \
    -max_total_time="$seconds" -timeout=60 -seed="${TSB_FUZZ_SEED:-0}" \
    -artifact_prefix="$fuzz/artifacts/$target-" "$corpus" "$fuzz/seeds/$target"
fi
echo "fuzz_long: $(find "$corpus" -type f | wc -l) corpus units; leak check of each"
export_sanitizer_options
export ASAN_OPTIONS="$ASAN_OPTIONS:fast_unwind_on_malloc=0:malloc_context_size=100"
log="$fuzz/artifacts/$target-leak-check.log"
if ! find "$corpus" -type f -print0 | xargs -0 -n 500 "$bin" -runs=1 -detect_leaks=1 >"$log" 2>&1; then
  grep -E "ERROR|SUMMARY|Running" "$log" | grep -B1 -E "ERROR|SUMMARY" | head -20
  echo "fuzz_long: the leak check of $target's corpus failed (all of it in $log)" >&2
  exit 1
fi
echo "fuzz_long: no leak, no error in $target's corpus"
