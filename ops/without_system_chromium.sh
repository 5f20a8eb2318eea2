#!/usr/bin/env bash
# Runs a command as on a machine without Debian's Chromium: in a private mount namespace,
# /usr/bin/chromium and /usr/lib/chromium are hidden by overlays whose upper layer holds a
# whiteout for each, so inside they do not exist and outside nothing changes. Needs root (or
# CAP_SYS_ADMIN) and overlayfs.
#
#   ops/without_system_chromium.sh npx -y deno@2 task check
set -euo pipefail
if [ $# -eq 0 ]; then
  echo "usage: $0 command [argument...]" >&2
  exit 2
fi

# An empty folder to mount the overlays' scratch layers on inside the namespace; outside it
# stays empty and is removed at the end.
scratch=$(mktemp -d)
trap 'rmdir "$scratch"' EXIT

status=0
unshare --mount --propagation private bash -euo pipefail -c '
  scratch=$1
  shift
  mount -t tmpfs -o size=1m,mode=0700 switchyard-scratch "$scratch"
  hide() { # hide DIR NAME: DIR/NAME no longer exists
    local upper="$scratch/upper$1" work="$scratch/work$1"
    mkdir -p "$upper" "$work"
    mknod "$upper/$2" c 0 0 # an overlay whiteout
    mount -t overlay switchyard-hide -o "lowerdir=$1,upperdir=$upper,workdir=$work" "$1"
  }
  hide /usr/bin chromium
  hide /usr/lib chromium
  if [ -e /usr/bin/chromium ] || [ -e /usr/lib/chromium ]; then
    echo "without_system_chromium: Debian'"'"'s Chromium is still visible" >&2
    exit 1
  fi
  echo "without_system_chromium: /usr/bin/chromium and /usr/lib/chromium hidden" >&2
  exec "$@"
' without_system_chromium "$scratch" "$@" || status=$?
exit "$status"
