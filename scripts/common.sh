# Shared by scripts/*.sh: install what is missing, then configure and build.
# Sourced, not run.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${TSB_BUILD_DIR:-$ROOT/build}"

# The releases these scripts know (docs/platforms.md): each names its
# LLVM, whose clang builds the sanitizer stage and libFuzzer. Testing has no
# VERSION_ID: its codename decides.
if [[ -r /etc/os-release ]]; then source /etc/os-release; fi
# TSB_RELEASE_PACKAGES: what only some releases ship. python3-torchaudio
# (tests/audio: torchaudio's operator library by name) is built for the
# release's own LibTorch on 12 (0.13.1) and 13 (2.6.0). Testing ships 2.11.0
# for its LibTorch 2.14 (its library, torchaudio/lib/libtorchaudio.abi3.so,
# fits the by-name rule), but its lfilter calls no torchaudio::_lfilter, the
# operator tests/audio's fixture checks: not installed there yet, and
# tests/audio skips without it.
TSB_APT_OPTIONS=()
TSB_RELEASE_PACKAGES=()
case "${ID:-}:${VERSION_ID:-}:${VERSION_CODENAME:-}" in
  debian:12:*) TSB_LLVM=14; TSB_RELEASE_PACKAGES=(python3-torchaudio) ;;  # bookworm: LibTorch 1.13.1
  debian:13:*) TSB_LLVM=19; TSB_RELEASE_PACKAGES=(python3-torchaudio) ;;  # trixie: LibTorch 2.6.0
  debian::forky)               # testing: LibTorch 2.14.1
    TSB_LLVM=21
    # The archive's testing snapshot outlives its Release file's Valid-Until.
    TSB_APT_OPTIONS=(-o Acquire::Check-Valid-Until=false) ;;
  *)
    echo "tsbridge: scripts/ support Debian 12 (bookworm), Debian 13 (trixie) and Debian" \
         "testing (forky); this is ${PRETTY_NAME:-an unknown system}. On another system, install" \
         "LibTorch, Abseil, Boost, nlohmann-json, CLI11 and GoogleTest and build with CMake:" \
         "docs/platforms.md says how." >&2
    exit 1 ;;
esac

# The packages the build, the tests and the fixtures need.
TSB_PACKAGES=(
  g++ cmake make ccache pkg-config
  libtorch-dev libabsl-dev libboost-dev libdlpack-dev
  nlohmann-json3-dev libcli11-dev
  libzip-dev  # lists an AOTInductor package's models (core/runtime/aoti_package.cc, LibTorch 2.6)
  libsimdjson-dev  # tsb serve's request parse (hosts/serve/request_json.h; without it nlohmann's, slower)
  libgoogle-perftools-dev  # tcmalloc, tsb serve's allocator (hosts/serve/CMakeLists.txt; without it glibc's malloc, slower)
  python3-requests python3-jsonschema  # tsb serve's tests: the client and the protocol's schema
  libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc  # tsb serve's gRPC API (hosts/serve/grpc_predict_v2.proto; without them REST only)
  python3-grpcio python3-protobuf  # tsb serve's gRPC tests: the client (stubs from grpc_python_plugin)
  python3-fastapi python3-uvicorn python3-uvloop  # tsb serve's baseline: bench/serve_fastapi_baseline.py
  wrk  # bench/serve_bench.py --client wrk: a load that costs the shared cores little
  libgtest-dev libgmock-dev libbenchmark-dev
  python3-torch python3-torchvision  # torchvision: tests/vision, examples/vision
  python3-dev python3-pytest python3-setuptools python3-pip python3-wheel
  pybind11-dev  # torch/csrc headers include it: the Python host's torch fast path
  r-base-dev r-cran-cpp11 r-cran-testthat r-cran-r6 r-cran-bench r-cran-bit64 r-cran-withr  # hosts/r
  rustc cargo  # hosts/rust, with each release's own rustc (Debian 12: 1.63, the oldest supported)
  python3-distributed r-cran-future r-cran-future.apply  # the scale-out engines: hosts/python/tests/test_engines.py, hosts/r/tests/testthat/test-engines.R
  python3-hypothesis python3-numpy  # the differential tests (tests/reliability/python)
  abigail-tools  # abidw, abidiff: the ABI check against sdk/abi/'s baselines (tests/abi)
  # The sanitizer stage, libFuzzer, llvm-symbolizer (scripts/sanitize.sh).
  clang "libclang-rt-$TSB_LLVM-dev" "llvm-$TSB_LLVM"
  "${TSB_RELEASE_PACKAGES[@]}"
)

# apt_install PACKAGE...: one apt-get at a time on this machine. .ci/run
# prepares the Debian 13 root (which may install debootstrap) while Debian 12's
# packages install; two apt-gets at once fail on dpkg's lock.
apt_install() {
  local sudo=""
  [[ $(id -u) -eq 0 ]] || sudo="sudo"
  (
    flock 9
    $sudo apt-get "${TSB_APT_OPTIONS[@]}" update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
      "$@" >/dev/null
  ) 9>"${TMPDIR:-/tmp}/tsbridge-apt.lock"
}

install_missing() {
  local missing=()
  for p in "${TSB_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
      missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "tsbridge: installing ${missing[*]}"
    apt_install "${missing[@]}"
  fi
}

# configure_and_build [CMAKE_ARG...]: TSB_CMAKE_ARGS (split on spaces) come
# last, so a caller can change one option of any stage.
configure_and_build() {
  # -g1: line tables and function names (backtraces, sanitizer reports) for
  # about 20 % less compile time than -g's full debug information.
  cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" "$@" ${TSB_CMAKE_ARGS:-} >/dev/null
  # Two jobs: a LibTorch translation unit takes about 1 GiB and 10 s.
  # TSB_BUILD_TARGETS: only these (scripts/abi-baseline.sh builds the library).
  cmake --build "$BUILD" -j "${TSB_JOBS:-2}" ${TSB_BUILD_TARGETS:+--target $TSB_BUILD_TARGETS}
}

# The sanitizer stage's runtime options (docs/reliability.md explains each):
# scripts/sanitize.sh runs its tests with them, scripts/fuzz_long.sh its
# long fuzz runs.
export_sanitizer_options() {
  local supp="$ROOT/tests/reliability/sanitizers"
  export ASAN_OPTIONS="detect_leaks=1:strict_init_order=1:detect_stack_use_after_return=1"
  export LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:suppressions=$supp/ubsan.supp"
}
