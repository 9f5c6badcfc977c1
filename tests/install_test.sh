#!/bin/sh
# install_test.sh [MODULE]: `make install` and `make uninstall`, into a
# temporary DESTDIR (from the repository root, after building MODULE):
#
#   MAKE=make sh tests/install_test.sh build/weights.so
#
# For the default PREFIX (/usr/local) and for PREFIX=/opt/sqlite-weights it
# checks that install puts a copy of MODULE (mode 644) at
# $DESTDIR$PREFIX/lib/sqlite-weights/weights.so and nothing else, that the
# installed file loads by absolute path (sqlite3 shell and /usr/bin/python3)
# and that its weights_version() is the Makefile's VERSION; then that
# uninstall leaves no file and no sqlite-weights folder, and that a second
# uninstall succeeds.  Every process's exit status is checked.
# Last line: "install: N passed, M failed".
set -u
module=${1:-build/weights.so}
make=${MAKE:-make}
pass=0 fail=0

ok() { pass=$((pass + 1)); }
bad() { echo "FAILED: $*"; fail=$((fail + 1)); }
check() { # check DESCRIPTION EXPECTED ACTUAL
  if [ "$2" = "$3" ]; then ok; else bad "$1: expected '$2', got '$3'"; fi
}

version=$(sed -n 's/^VERSION[[:space:]]*:*=[[:space:]]*\([^[:space:]]*\)[[:space:]]*$/\1/p' Makefile)
[ -n "$version" ] || bad "no VERSION := line in the Makefile"
[ -f "$module" ] || { echo "install: FAILED: $module not found (run make first)"; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/install-test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
out=$tmp/out
real_before=$(ls -d /usr/local/lib/sqlite-weights /opt/sqlite-weights 2>/dev/null)

# The built module itself reports the Makefile's version.
v=$(sqlite3 -cmd ".load ./${module%.so}" :memory: 'SELECT weights_version()' 2>&1)
check "sqlite3 .load ./${module%.so}: exit status" 0 $?
check "weights_version() of $module" "$version" "$v"

for prefix in "" /opt/sqlite-weights; do
  if [ -z "$prefix" ]; then args="" shown=/usr/local; else args="PREFIX=$prefix" shown=$prefix; fi
  dest=$tmp/root
  rm -rf "$dest" && mkdir "$dest" || exit 1
  file=$dest$shown/lib/sqlite-weights/weights.so
  what="make install $args"

  if ! $make --no-print-directory -s install DESTDIR="$dest" $args >"$out" 2>&1; then
    cat "$out"
    bad "$what: make failed"
    continue
  fi
  ok
  if [ ! -f "$file" ]; then
    bad "$what: $file not installed; found: $(cd "$dest" && find . -type f)"
    continue
  fi
  ok
  check "$what: files installed" "./${shown#/}/lib/sqlite-weights/weights.so" "$(cd "$dest" && find . -type f)"
  check "$what: mode of weights.so" 644 "$(stat -c %a "$file")"
  if cmp -s "$module" "$file"; then ok; else bad "$what: $file differs from $module"; fi

  # Load the installed file by absolute path (without and with the suffix).
  for load in "$dest$shown/lib/sqlite-weights/weights" "$file"; do
    v=$(sqlite3 -cmd ".load $load" :memory: 'SELECT weights_version()' 2>&1)
    check "$what: sqlite3 .load $load: exit status" 0 $?
    check "$what: sqlite3 .load $load: weights_version()" "$version" "$v"
  done
  n=$(sqlite3 -cmd ".load $file" :memory: \
    "SELECT count(*) FROM gguf('build/demo/tiny-llama.gguf')" 2>&1)
  check "$what: a query through the installed module: exit status" 0 $?
  check "$what: a query through the installed module" 21 "$n"
  if [ -x /usr/bin/python3 ]; then
    v=$(/usr/bin/python3 -c '
import sqlite3, sys
c = sqlite3.connect(":memory:")
c.enable_load_extension(True)
c.load_extension(sys.argv[1])
print(c.execute("SELECT weights_version()").fetchone()[0])
c.close()' "$dest$shown/lib/sqlite-weights/weights" 2>&1)
    check "$what: Python load_extension by absolute path: exit status" 0 $?
    check "$what: Python load_extension by absolute path: weights_version()" "$version" "$v"
  else
    echo "skipped: $what: Python load_extension (/usr/bin/python3 not found)"
  fi

  # Uninstall: nothing left but the folders above sqlite-weights; twice is fine.
  for i in 1 2; do
    if $make --no-print-directory -s uninstall DESTDIR="$dest" $args >"$out" 2>&1; then
      ok
    else
      cat "$out"
      bad "make uninstall $args (run $i): make failed"
    fi
  done
  check "make uninstall $args: files left" "" "$(cd "$dest" && find . ! -type d)"
  if [ -e "$dest$shown/lib/sqlite-weights" ]; then
    bad "make uninstall $args: $shown/lib/sqlite-weights left behind"
  else
    ok
  fi
done

check "nothing installed outside DESTDIR" "$real_before" \
  "$(ls -d /usr/local/lib/sqlite-weights /opt/sqlite-weights 2>/dev/null)"

echo "install: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
