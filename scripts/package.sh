#!/usr/bin/env bash
# Builds the Debian packages of this checkout (debian/, docs/install.md) with
# dpkg-buildpackage, on the release it runs on, then checks them with
# lintian. The package build runs the whole test suite (DEB_BUILD_OPTIONS=nocheck
# skips it). Output: $TSB_PACKAGE_DIR (default build/packages/, or
# build-CODENAME/packages/ in scripts/in-debian.sh's roots).
#
#   bash scripts/package.sh                              # this release
#   bash scripts/in-debian.sh 13 bash scripts/package.sh # Debian 13
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
TSB_PACKAGES+=(debhelper dh-python dh-r chrpath lintian dpkg-dev fakeroot)
install_missing
OUT="${TSB_PACKAGE_DIR:-$BUILD/packages}"
version=$(dpkg-parsechangelog -l "$ROOT/debian/changelog" -S Version)
src="$OUT/tsbridge-$version"
start=$SECONDS
# The tracked files as they are in the working tree, nothing built: the
# package is built from the source alone.
rm -rf "$OUT" && mkdir -p "$src"
(cd "$ROOT" && git ls-files -z --cached --others --exclude-standard --deduplicate |
   while IFS= read -r -d '' f; do [[ -e "$f" ]] && printf '%s\0' "$f"; done |
   xargs -0 cp --parents -t "$src")
cd "$src"
# TSB_PACKAGE_NOCHECK=1 (which scripts/in-debian.sh passes into a root, as
# it does every TSB_ variable) is DEB_BUILD_OPTIONS=nocheck.
[[ "${TSB_PACKAGE_NOCHECK:-0}" == 1 ]] && DEB_BUILD_OPTIONS="${DEB_BUILD_OPTIONS:-} nocheck"
export DEB_BUILD_OPTIONS="parallel=${TSB_JOBS:-2} ${DEB_BUILD_OPTIONS:-}"
# debhelper (compat 13) points HOME into the build tree for its build steps,
# so ccache's default directory started empty at every package build: the
# package builds compiled everything every time. The caller's cache instead.
export CCACHE_DIR="${CCACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/ccache}"
# TSB_PACKAGE_LINE_TABLES=1 (.ci/run): -g1 after Debian's -g, line tables
# and function names only, as the other stages build: about a fifth less
# compile time and far less disk for packages that exist to be tested. A
# distribution's build keeps Debian's flags.
if [[ "${TSB_PACKAGE_LINE_TABLES:-0}" == 1 ]]; then
  export DEB_CFLAGS_APPEND="-g1 ${DEB_CFLAGS_APPEND:-}" DEB_CXXFLAGS_APPEND="-g1 ${DEB_CXXFLAGS_APPEND:-}"
fi
if ! dpkg-buildpackage -b -uc -us >"$OUT/build.log" 2>&1; then
  # ctest's summary and failures when the tests ran, else the log's end.
  grep -E -A 60 "tests passed, [0-9]+ tests failed out of" "$OUT/build.log" >&2 ||
    tail -n 80 "$OUT/build.log" >&2
  echo "tsbridge: the package build failed: $OUT/build.log" >&2
  exit 1
fi
grep -E -A 3 "tests passed, [0-9]+ tests failed out of" "$OUT/build.log" || true
echo "tsbridge: packages built in $((SECONDS - start)) s ($PRETTY_NAME): $OUT"
ls "$OUT"/*.deb
cd "$OUT"
lintian --fail-on error --suppress-tags-from-file /dev/null *.changes | tee lintian.log
echo "tsbridge: lintian reports no error"
