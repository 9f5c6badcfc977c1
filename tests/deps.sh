#!/bin/sh
# deps.sh PKG...: install the Debian packages that are missing (as root, with
# apt-get), or print the exact command to run.  Used by `make deps`.
set -u
missing=""
for p in "$@"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
    missing="$missing $p"
  fi
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "deps: installing:$missing"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >/dev/null || { echo "deps: apt-get update failed" >&2; exit 1; }
  apt-get install -y -q --no-install-recommends $missing || exit 1
else
  echo "deps: missing packages:$missing" >&2
  echo "deps: run: sudo apt-get install$missing" >&2
  exit 1
fi
