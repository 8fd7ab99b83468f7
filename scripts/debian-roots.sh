# Shared by scripts/in-debian.sh and scripts/clean-room.sh: which Debian
# release a name means, and a root of it made once with debootstrap.
# Sourced, not run.

# debian_release NAME: sets codename and debootstrap_script (Debian 12's
# debootstrap has no script named forky: testing's is sid's), or fails.
debian_release() {
  case "$1" in
    12 | bookworm) codename=bookworm debootstrap_script="" ;;
    13 | trixie) codename=trixie debootstrap_script="" ;;
    testing | forky) codename=forky debootstrap_script=/usr/share/debootstrap/scripts/sid ;;
    *) return 1 ;;
  esac
}

# debian_root_once DIR: a minbase root of $codename in DIR, made unless one
# finished before (a root whose debootstrap did not finish is made again).
debian_root_once() {
  local dir="$1" sudo=""
  [[ $(id -u) -eq 0 ]] || sudo="sudo"
  [[ -e "$dir/.tsbridge-root-ready" ]] && return 0
  if ! command -v debootstrap >/dev/null; then
    (source "$(dirname "${BASH_SOURCE[0]}")/common.sh" && apt_install debootstrap)
  fi
  echo "tsbridge: making a Debian $codename root in $dir (debootstrap, a minute or two)"
  $sudo rm -rf "$dir"
  $sudo mkdir -p "$dir"
  $sudo debootstrap --variant=minbase "$codename" "$dir" \
    "${TSB_DEBIAN_MIRROR:-http://deb.debian.org/debian}" $debootstrap_script \
    >"$dir.debootstrap.log" 2>&1 || { tail -n 20 "$dir.debootstrap.log" >&2; return 1; }
  $sudo touch "$dir/.tsbridge-root-ready"
}
