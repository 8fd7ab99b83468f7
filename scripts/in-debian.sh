#!/usr/bin/env bash
# Runs a command inside a root file system of another Debian release, with
# this checkout mounted at the same path (docs/platforms.md):
#
#   bash scripts/in-debian.sh 13 bash scripts/test.sh        # Debian 13 "trixie"
#   bash scripts/in-debian.sh testing bash scripts/test.sh   # Debian testing "forky"
#
# RELEASE is 13 or trixie (LibTorch 2.6), testing or forky (LibTorch 2.14).
# The root is made once with debootstrap (minbase) and kept at
# $TSB_DEBIAN_ROOTS/CODENAME (default /var/cache/tsbridge/trixie, .../forky),
# outside the checkout so that every clone on the machine reuses it and its
# ccache; the packages are installed by the same scripts/common.sh as on the
# host. Builds default to build-CODENAME/ (and build-CODENAME-asan/) so that
# they never mix with the host's build/. Needs root (or sudo), debootstrap and
# the network to Debian's archive. /proc, /sys and /dev are mounted inside, in
# a mount namespace of the run's own.
set -euo pipefail
CHECKOUT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
(($# >= 2)) || { echo "usage: $0 RELEASE COMMAND [ARG...]   (RELEASE: 13, trixie, testing, forky)" >&2; exit 2; }
source "$CHECKOUT/scripts/debian-roots.sh"
if [[ $1 == 12 || $1 == bookworm ]] || ! debian_release "$1"; then
  echo "tsbridge: scripts/in-debian.sh knows 13 (trixie) and testing (forky), not '$1'" >&2; exit 2
fi
shift
TARGET="${TSB_DEBIAN_ROOTS:-/var/cache/tsbridge}/$codename"
sudo=""
[[ $(id -u) -eq 0 ]] || sudo="sudo"
debian_root_once "$TARGET"

# Each run mounts in a mount namespace of its own (unshare): runs in the same
# root at once do not see, stack or unmount each other's mounts, and the
# kernel drops them all when the run ends, also on failure.
if [[ -z "${TSB_DEBIAN_MOUNT_NS:-}" ]]; then
  exec ${sudo:+sudo -E} env TSB_DEBIAN_MOUNT_NS=1 unshare --mount --propagation private \
    bash "${BASH_SOURCE[0]}" "$codename" "$@"
fi
mount_into() {  # mount_into DEST mount-args...
  mkdir -p "$TARGET$1"
  mount "${@:2}" "$TARGET$1"
}
mount_into /proc -t proc proc
mount_into /sys --rbind /sys
mount_into /dev --rbind /dev
mount_into "$CHECKOUT" --bind "$CHECKOUT"
cp /etc/resolv.conf "$TARGET/etc/resolv.conf"

# A clean environment: the host's PATH may name interpreters the root lacks.
env_vars=(HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
          LANG=C.UTF-8 TERM="${TERM:-dumb}"
          TSB_BUILD_DIR="$CHECKOUT/build-$codename"
          TSB_ASAN_BUILD_DIR="$CHECKOUT/build-$codename-asan")
while IFS='=' read -r name _; do
  case "$name" in
    TSB_BUILD_DIR | TSB_ASAN_BUILD_DIR | TSB_DEBIAN_ROOTS | TSB_DEBIAN_MOUNT_NS) ;;
    TSB_* | CI | CCACHE_*) env_vars+=("$name=${!name}") ;;
  esac
done < <(env)

chroot "$TARGET" /usr/bin/env -i "${env_vars[@]}" /bin/bash -c \
  'cd "$1" && source scripts/common.sh && install_missing && shift && exec "$@"' \
  "tsbridge-$codename" "$CHECKOUT" "$@"
