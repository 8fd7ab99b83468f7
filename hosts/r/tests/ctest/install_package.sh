#!/bin/sh
# Installs an R package from the source tree into a build-local library
# without writing into the source tree: copies it to WORK, then
# R CMD INSTALL -l LIB. TSB_BUILD_DIR (set by ctest) tells hosts/r's
# configure where libtsbridge is.
# The output is also kept in WORK/NAME.install.log: R CMD check reads it
# for compiler warnings instead of installing again (check_package.sh).
# Usage: install_package.sh SOURCE_DIR WORK_DIR LIB_DIR
set -e
src=$1 work=$2 lib=$3
name=$(sed -n "s/^Package: //p" "$src/DESCRIPTION")
rm -rf "$work/$name"
mkdir -p "$work" "$lib"
cp -R "$src" "$work/$name"
# TSB_R_INSTALL_FLAGS: e.g. --no-test-load in the sanitizer build (r.cmake).
log="$work/$name.install.log"
status=0
R CMD INSTALL --no-docs --no-multiarch ${TSB_R_INSTALL_FLAGS:-} -l "$lib" "$work/$name" \
  >"$log" 2>&1 || status=$?
cat "$log"
exit "$status"
