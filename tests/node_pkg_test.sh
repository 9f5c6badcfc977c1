#!/bin/sh
# node_pkg_test.sh: the npm package sqlite-weights (bindings/node), installed
# into a temporary npm project the way the README says, from the repository
# root after `make build/weights.so build/demo/.stamp` and tests/node_test.sh:
#
#   sh tests/node_pkg_test.sh
#
# It runs `npm install --offline REPO/bindings/node` in an empty project
# (npm links the folder and runs its install script, which runs make), then
# tests/node_pkg_test.js from that project, with better-sqlite3 12 taken from
# build/node (installed there by tests/node_test.sh; not compiled again).  It
# also checks that the package's version is the Makefile's VERSION and that
# a copied install (--install-links, outside the repository) fails saying
# why.  Skipped, with the reason, when node or npm is missing, node is older
# than 20, or build/node has no better-sqlite3.  Every exit status is checked.
# Last line: "node-pkg: N passed, M failed" or "node-pkg: skipped: REASON".
set -u
repo=$(pwd)
mods=$repo/build/node/node_modules
pass=0 fail=0

ok() { pass=$((pass + 1)); }
bad() { echo "FAILED: $*"; fail=$((fail + 1)); }

for f in build/weights.so build/demo/tiny-llama.safetensors bindings/node/package.json; do
  [ -f "$f" ] || { echo "node-pkg: FAILED: $f not found (make build/weights.so build/demo/.stamp)"; exit 1; }
done
for tool in node npm; do
  command -v $tool >/dev/null 2>&1 || { echo "node-pkg: skipped: $tool not found"; exit 0; }
done
major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null)
case $major in '' | *[!0-9]*) echo "node-pkg: FAILED: cannot get the version of node"; exit 1 ;; esac
if [ "$major" -lt 20 ]; then
  echo "node-pkg: skipped: node $(node --version) is older than 20"
  exit 0
fi
if ! NODE_PATH=$mods node -e "new (require('better-sqlite3'))(':memory:').close()" >/dev/null 2>&1; then
  echo "node-pkg: skipped: no working better-sqlite3 in $mods (tests/node_test.sh installs it)"
  exit 0
fi

version=$(sed -n 's/^VERSION[[:space:]]*:*=[[:space:]]*\([^[:space:]]*\)[[:space:]]*$/\1/p' Makefile)
pkgversion=$(node -p "require('./bindings/node/package.json').version")
if [ -n "$version" ] && [ "$version" = "$pkgversion" ]; then ok; else
  bad "bindings/node/package.json version '$pkgversion' is not the Makefile's VERSION '$version'"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/node-pkg-test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/project" "$tmp/copied"
printf '{ "private": true }\n' >"$tmp/project/package.json"
cp "$tmp/project/package.json" "$tmp/copied/package.json"

# The README's install, offline: npm links the folder and runs install.js.
if (cd "$tmp/project" && npm install --offline --no-audit --no-fund --foreground-scripts "$repo/bindings/node") \
  >"$tmp/install.log" 2>&1; then
  ok
else
  cat "$tmp/install.log"
  bad "npm install --offline $repo/bindings/node failed"
fi
# npm 11's allowScripts: a project runs no dependency's install script that it
# has not approved.  Approve ours and rebuild, as the README says.
if ! grep -q "sqlite-weights: make -C $repo" "$tmp/install.log" &&
  (cd "$tmp/project" && npm help install-scripts) >/dev/null 2>&1; then
  (cd "$tmp/project" && npm install-scripts approve sqlite-weights &&
    npm rebuild --offline --foreground-scripts) >>"$tmp/install.log" 2>&1
fi
# WERROR=: the install builds without -Werror (a user's newer compiler)
if grep -q "sqlite-weights: make -C $repo WERROR= build/weights.so" "$tmp/install.log"; then ok; else
  cat "$tmp/install.log"
  bad "npm install did not run the package's install script (install.js)"
fi

cp tests/node_pkg_test.js "$tmp/project/"
(cd "$tmp/project" && NODE_PATH=$mods node node_pkg_test.js "$repo") >"$tmp/out" 2>&1
rc=$?
grep -v '^node-pkg: ' "$tmp/out"
line=$(tail -n 1 "$tmp/out")
case $line in
  "node-pkg: "*" passed, "*" failed")
    n=${line#node-pkg: } p=${n%% passed*} f=${n#* passed, } f=${f%% failed}
    pass=$((pass + p)) fail=$((fail + f)) ;;
  *) bad "node_pkg_test.js printed no summary line" ;;
esac
[ "$rc" -eq 0 ] || bad "node node_pkg_test.js exited with status $rc"

# A copy of the folder (not a link) has no repository to build from: a clear failure.
if (cd "$tmp/copied" && npm install --offline --install-links --no-audit --no-fund --foreground-scripts \
  "$repo/bindings/node") >"$tmp/copied.log" 2>&1; then
  bad "npm install --install-links succeeded without the repository to build from"
elif grep -q "is not the sqlite-weights repository" "$tmp/copied.log"; then
  ok
else
  cat "$tmp/copied.log"
  bad "npm install --install-links failed without saying why"
fi

echo "node-pkg: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
