#!/usr/bin/env bash
# The clean-room test (docs/install.md): the packages scripts/package.sh
# built, installed with apt-get into a fresh root of the same release, where
# tests/clean_room/inside.sh uses them from installed files only; then a
# copy of this checkout's tracked files builds the Python, R and Rust hosts
# against the installed library (pip, R CMD INSTALL, cargo) with no variable
# set.
#
#   bash scripts/clean-room.sh            # this release's packages (build/packages)
#   bash scripts/clean-room.sh 13         # Debian 13's (build-trixie/packages)
#   bash scripts/clean-room.sh --layers   # only the two layers below, no packages needed
#                                         # (.ci/run makes them while Debian 12 builds)
#
# Each run's root is fresh: an overlay, dropped when the run ends, on two
# layers kept in $TSB_DEBIAN_ROOTS (never changed once made): CODENAME-clean,
# a minbase root (debootstrap), and CODENAME-clean-tools, what a user has
# beside tsbridge (compilers, CMake, LibTorch, python3-torch, R, Rust),
# made again when that list changes. No tsbridge file is in either.
# Downloaded .debs are kept in $TSB_DEBIAN_ROOTS/apt-CODENAME (this system's
# apt cache for its own release).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source /etc/os-release
layers_only=()
if [[ "${1:-}" == --layers ]]; then
  layers_only=(--layers)
  shift
fi
ROOTS="${TSB_DEBIAN_ROOTS:-/var/cache/tsbridge}"
source "$ROOT/scripts/debian-roots.sh"
debian_release "${1:-$VERSION_CODENAME}" ||
  { echo "tsbridge: scripts/clean-room.sh knows 12, 13 and testing, not '${1:-}'" >&2; exit 2; }
if [[ $codename == "${VERSION_CODENAME:-}" ]]; then
  debs="${TSB_PACKAGE_DIR:-${TSB_BUILD_DIR:-$ROOT/build}/packages}"
  apt_cache=/var/cache/apt/archives
else
  debs="${TSB_PACKAGE_DIR:-$ROOT/build-$codename/packages}"
  apt_cache="$ROOTS/apt-$codename"
fi
((${#layers_only[@]})) || ls "$debs"/*.deb >/dev/null 2>&1 ||
  { echo "tsbridge: no packages in $debs: run scripts/package.sh first" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || { echo "tsbridge: the clean-room test needs root" >&2; exit 1; }

base="$ROOTS/$codename-clean"

# What a user of each host has beside tsbridge: compilers for demo.c and
# the plugin, LibTorch's development files (which libtsbridge-dev depends
# on), torch for Python, R, Rust's toolchain, and for the source installs
# Python's and R's development files.
TOOLS=(gcc g++ make cmake pkgconf libtorch-dev libabsl-dev libboost-dev libdlpack-dev
       python3-torch python3-dev python3-pip python3-setuptools python3-wheel
       r-base-dev r-cran-cpp11 rustc cargo)
tools="$ROOTS/$codename-clean-tools"
apt_options=()
[[ $codename == forky ]] && apt_options=(-o Acquire::Check-Valid-Until=false)

# In a mount namespace of the run's own: every mount goes when it ends.
if [[ -z "${TSB_CLEAN_ROOM_NS:-}" ]]; then
  exec env TSB_CLEAN_ROOM_NS=1 unshare --mount --propagation private \
    bash "${BASH_SOURCE[0]}" "${layers_only[@]}" "$codename"
fi
mkdir -p "$ROOTS"
run="$(mktemp -d "$ROOTS/clean-room-run.XXXXXX")"
trap 'umount -R "$run/root" 2>/dev/null || true; rm -rf "$run"' EXIT
target="$run/root"
# mount_root LOWER UPPER: the run's root, an overlay of UPPER on LOWER.
mount_root() {
  mkdir -p "$2" "$run/work" "$target" "$apt_cache"
  mount -t overlay overlay -o "lowerdir=$1,upperdir=$2,workdir=$run/work" "$target"
  mount -t proc proc "$target/proc"
  mount --rbind /sys "$target/sys"
  mount --rbind /dev "$target/dev"
  mount --bind "$apt_cache" "$target/var/cache/apt/archives"
  cp /etc/resolv.conf "$target/etc/resolv.conf"
}
in_root() {
  chroot "$target" /usr/bin/env -i HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"
}
start=$SECONDS
# The layers are made by one run at a time: .ci/run makes them in the
# background while the packages build, and the test itself waits for them.
exec 8>"$ROOTS/$codename-clean.lock"
flock 8
debian_root_once "$base"
if [[ "$(cat "$tools/.tsbridge-tools" 2>/dev/null)" != "${TOOLS[*]}" ]]; then
  echo "tsbridge: installing ${TOOLS[*]} into $tools (once)"
  rm -rf "$tools"
  mount_root "$base" "$tools"
  # The host's apt cache is the root's: one apt at a time (common.sh's lock).
  (
    flock 9
    in_root apt-get "${apt_options[@]}" update -qq
    in_root apt-get "${apt_options[@]}" install -y -qq --no-install-recommends "${TOOLS[@]}" \
      >"$run/apt.log" 2>&1 || { tail -n 40 "$run/apt.log" >&2; exit 1; }
  ) 9>"${TMPDIR:-/tmp}/tsbridge-apt.lock"
  rm -f "$tools/etc/resolv.conf"
  umount -R "$target"
  rm -rf "$run/work"
  echo "${TOOLS[*]}" >"$tools/.tsbridge-tools"
fi
flock -u 8
if ((${#layers_only[@]})); then
  echo "tsbridge: clean-room layers ($codename) ready in $((SECONDS - start)) s"
  exit 0
fi
mount_root "$tools:$base" "$run/upper"

# What the test sees: the packages and the test's own files, no checkout.
work="$target/clean-room"
mkdir -p "$work/debs"
find "$debs" -maxdepth 1 -name '*.deb' ! -name '*-dbgsym_*' -exec cp -t "$work/debs/" {} +
cp -r "$ROOT"/tests/clean_room/. "$work/"
cp "$ROOT/examples/demo.c" "$work/"
cp -r "$ROOT/examples/plugin" "$work/plugin"
debs_in_root=()
for deb in "$work"/debs/*.deb; do debs_in_root+=("/clean-room/debs/${deb##*/}"); done
in_root apt-get "${apt_options[@]}" update -qq
in_root apt-get "${apt_options[@]}" install -y -qq --no-install-recommends "${debs_in_root[@]}" \
  >"$run/apt.log" 2>&1 || { tail -n 40 "$run/apt.log" >&2; exit 1; }
echo "tsbridge: clean room ($codename) installed in $((SECONDS - start)) s"
in_root bash /clean-room/inside.sh installed
# Then a clean checkout's files, for the source installs.
mkdir -p "$work/src"
(cd "$ROOT" && git ls-files -z | xargs -0 cp --parents -t "$work/src")
in_root bash /clean-room/inside.sh source
echo "tsbridge: clean-room test ($codename) passed in $((SECONDS - start)) s"
