#!/bin/sh
# R CMD check of hosts/r, kept fast: no manual, no vignettes, no tests (ctest
# runs the testthat suite as r_host), and no second install: the package
# r_install put into LIB_DIR is checked, its install log read for compiler
# warnings (--install=check:LOG). Fails on an ERROR or a WARNING.
# Usage: check_package.sh SOURCE_DIR WORK_DIR LIB_DIR INSTALL_LOG
set -e
src=$1 work=$2 lib=$3 install_log=$4
name=$(sed -n "s/^Package: //p" "$src/DESCRIPTION")
rm -rf "$work"
mkdir -p "$work"
cp -R "$src" "$work/$name"
cd "$work"
export _R_CHECK_FORCE_SUGGESTS_=false _R_CHECK_CRAN_INCOMING_=false
export R_LIBS="$lib${R_LIBS:+:$R_LIBS}"
status=0
R CMD check --no-manual --no-build-vignettes --ignore-vignettes --no-tests \
  --install="check:$install_log" --library="$lib" "$name" || status=$?
log="$name.Rcheck/00check.log"  # relative: we are in $work
cat "$log" >/dev/null 2>&1 || { echo "no check log"; exit 1; }
if grep -E "^Status:.*(ERROR|WARNING)" "$log" || [ "$status" -ne 0 ]; then
  echo "R CMD check failed (status $status); see $log"
  exit 1
fi
grep "^Status:" "$log"
