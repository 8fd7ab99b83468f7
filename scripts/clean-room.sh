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
#
# Each run starts from a pristine minbase root (debootstrap, made once and
# kept at $TSB_DEBIAN_ROOTS/CODENAME-clean, never changed): the run's root is
# an overlay on it, dropped when the run ends. Downloaded .debs are kept in
# $TSB_DEBIAN_ROOTS/apt-CODENAME (this system's apt cache for its own release).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source /etc/os-release
MIRROR="${TSB_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
ROOTS="${TSB_DEBIAN_ROOTS:-/var/cache/tsbridge}"
case "${1:-$VERSION_CODENAME}" in
  12 | bookworm) codename=bookworm script="" ;;
  13 | trixie) codename=trixie script="" ;;
  testing | forky) codename=forky script=/usr/share/debootstrap/scripts/sid ;;
  *) echo "tsbridge: scripts/clean-room.sh knows 12, 13 and testing, not '$1'" >&2; exit 2 ;;
esac
if [[ $codename == "${VERSION_CODENAME:-}" ]]; then
  debs="${TSB_PACKAGE_DIR:-${TSB_BUILD_DIR:-$ROOT/build}/packages}"
  apt_cache=/var/cache/apt/archives
else
  debs="${TSB_PACKAGE_DIR:-$ROOT/build-$codename/packages}"
  apt_cache="$ROOTS/apt-$codename"
fi
ls "$debs"/*.deb >/dev/null 2>&1 ||
  { echo "tsbridge: no packages in $debs: run scripts/package.sh first" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || { echo "tsbridge: the clean-room test needs root" >&2; exit 1; }

base="$ROOTS/$codename-clean"
if [[ ! -e "$base/.tsbridge-root-ready" ]]; then
  command -v debootstrap >/dev/null ||
    (source "$ROOT/scripts/common.sh" && apt_install debootstrap)
  echo "tsbridge: making a pristine Debian $codename root in $base (debootstrap)"
  rm -rf "$base" && mkdir -p "$base"
  debootstrap --variant=minbase "$codename" "$base" "$MIRROR" $script \
    >"$base.debootstrap.log" 2>&1 || { tail -n 20 "$base.debootstrap.log" >&2; exit 1; }
  touch "$base/.tsbridge-root-ready"
fi

# In a mount namespace of the run's own: every mount goes when it ends.
if [[ -z "${TSB_CLEAN_ROOM_NS:-}" ]]; then
  exec env TSB_CLEAN_ROOM_NS=1 unshare --mount --propagation private \
    bash "${BASH_SOURCE[0]}" "$codename"
fi
run="$(mktemp -d "$ROOTS/clean-room-run.XXXXXX")"
trap 'umount -R "$run/root" 2>/dev/null || true; rm -rf "$run"' EXIT
mkdir -p "$run/upper" "$run/work" "$run/root" "$apt_cache"
mount -t overlay overlay -o "lowerdir=$base,upperdir=$run/upper,workdir=$run/work" "$run/root"
target="$run/root"
mount -t proc proc "$target/proc"
mount --rbind /sys "$target/sys"
mount --rbind /dev "$target/dev"
mount --bind "$apt_cache" "$target/var/cache/apt/archives"
cp /etc/resolv.conf "$target/etc/resolv.conf"

# What the test sees: the packages and the test's own files, no checkout.
work="$target/clean-room"
mkdir -p "$work/debs"
cp "$debs"/*.deb "$work/debs/"
cp -r "$ROOT"/tests/clean_room/. "$work/"
cp "$ROOT/examples/demo.c" "$work/"
cp -r "$ROOT/examples/plugin" "$work/plugin"

in_root() {
  chroot "$target" /usr/bin/env -i HOME=/root LANG=C.UTF-8 \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"
}
apt_options=()
[[ $codename == forky ]] && apt_options=(-o Acquire::Check-Valid-Until=false)
start=$SECONDS
# The packages with what a user of each host would install beside them:
# compilers for demo.c and the plugin, torch for Python, Rust's toolchain,
# and for the source installs Python's and R's development files.
in_root apt-get "${apt_options[@]}" update -qq
in_root env DEBIAN_FRONTEND=noninteractive apt-get "${apt_options[@]}" install -y -qq \
  --no-install-recommends /clean-room/debs/*.deb \
  gcc g++ make cmake pkgconf python3-torch rustc cargo \
  python3-dev python3-pip python3-setuptools python3-wheel r-base-dev r-cran-cpp11 \
  >"$run/apt.log" 2>&1 || { tail -n 40 "$run/apt.log" >&2; exit 1; }
echo "tsbridge: clean room ($codename) installed in $((SECONDS - start)) s"
in_root bash /clean-room/inside.sh installed
# Then a clean checkout's files, for the source installs.
mkdir -p "$work/src"
(cd "$ROOT" && git ls-files -z | xargs -0 cp --parents -t "$work/src")
in_root bash /clean-room/inside.sh source
echo "tsbridge: clean-room test ($codename) passed in $((SECONDS - start)) s"
