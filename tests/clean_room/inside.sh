#!/usr/bin/env bash
# The clean-room test's steps, run by scripts/clean-room.sh inside a fresh
# root where only the packages in ./debs are installed from this project:
# no source tree, no build tree. Everything runs from installed files, in
# the order docs/install.md gives. Last, the source installs: a copy of
# hosts/ (and nothing else) builds against the installed library with no
# variable set.
#
#   inside.sh installed   # phase 1: installed files only
#   inside.sh source      # phase 2: after scripts/clean-room.sh copied the checkout to ./src
set -euo pipefail
cd "$(dirname "$0")"
here=$PWD
step() { echo; echo "== clean room: $*"; }
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
phase=${1:?usage: inside.sh installed|source}

if [[ $phase == installed ]]; then
step "the installed files"
dpkg -l 'libtsbridge*' tsbridge-tools python3-tsbridge r-other-tsbridge librust-tsbridge-dev |
  grep '^ii'
[[ ! -e /usr/lib/python3/dist-packages/tsbridge/_lib ]]  # the system library, not a copy

step "tsb runs the example model"
tsb demo | tee tsb.out
grep -qF '[{"start":[1.0,3.0],"end":[4.0,-2.0]}' tsb.out
tsb compile model.torchscript -o model.pt
tsb run model.pt --args '[{"a": {"dtype": "float32", "shape": [2], "data": [1, 2]}}]' | tee run.out
grep -qF '[6.0,{"a":[2]}]' run.out

step "examples/demo.c with pkg-config"
cc -std=c99 demo.c $(pkg-config --cflags --libs tsbridge) -o demo
./demo | tee demo.out
grep -q "weights share the host buffer (zero copy): yes" demo.out

step "an out-of-tree plugin with find_package(tsbridge)"
cmake -S plugin -B plugin-build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build plugin-build -j 2 >/dev/null
./plugin-build/mysparse_host plugin-build/mysparse.so | tee plugin.out
grep -q "nnz = 4" plugin.out

step "Python imports tsbridge, calls the module and the plugin"
cd /tmp && /usr/bin/python3 "$here/call.py" "$here/model.pt" "$here/plugin-build/mysparse.so"
cd "$here"

step "R attaches tsbridge, calls the module and the plugin"
Rscript call.R model.pt plugin-build/mysparse.so

step "a Rust program on the installed crate (offline, /usr/share/cargo/registry)"
mkdir -p rust_user/.cargo
cat >rust_user/.cargo/config.toml <<'CONFIG'
[source.crates-io]
replace-with = "debian"
[source.debian]
directory = "/usr/share/cargo/registry"
CONFIG
(cd rust_user && cargo build --offline --quiet && ./target/debug/tsbridge-clean-room ../model.pt)

echo
echo "tsbridge: the clean-room test passed from installed files"
exit 0
fi

step "source installs against the installed library, no variable set"
unset TSB_BUILD_DIR TSB_HOME TSB_INCLUDE_DIR TSB_LIB_DIR TSBRIDGE_LIB_DIR PKG_CONFIG_PATH
cd src
/usr/bin/python3 -m pip wheel --no-build-isolation --no-index --no-deps -w wheels ./hosts/python
/usr/bin/python3 -m pip install --no-build-isolation --no-index --no-deps --target pyinstall \
  ./hosts/python
(here=$PWD && cd /tmp && PYTHONPATH="$here/pyinstall" /usr/bin/python3 -c \
  'import tsbridge, sys; assert tsbridge.__file__.startswith(sys.argv[1]), tsbridge.__file__; print("pip install: ok")' \
  "$here/pyinstall")
mkdir -p rlib && R CMD INSTALL -l rlib hosts/r
Rscript -e 'library(tsbridge, lib.loc = "rlib"); stopifnot(tsb_version() != ""); cat("R CMD INSTALL: ok\n")'
(cd hosts/rust && cargo build --offline --quiet && echo "cargo build: ok")

echo
echo "tsbridge: the clean-room test passed the source installs"
