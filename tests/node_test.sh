#!/bin/sh
# node_test.sh MODULE: load the extension into Node.js through better-sqlite3
# and run tests/node_test.js (from the repository root):
#
#   sh tests/node_test.sh build/weights.so
#
# better-sqlite3 $BETTER_SQLITE3_VERSION (version 12: 13 needs Node 22 and
# crashes on Node 20) is installed once into build/node with npm; later runs
# reuse it without touching the network, unless it no longer loads (a new
# Node), in which case it is installed again.  Skipped, with the reason, when
# node or npm is not installed or node is older than 20.  Fails when the
# install fails, when the test fails, or when node exits with a non-zero
# status (a crash at close included).  Last line: "node: N passed, M failed"
# or "node: skipped: REASON".
set -u
module=${1:-build/weights.so}
version=12.11.1
dir=build/node

if [ ! -f "$module" ]; then
  echo "node: FAILED: $module not found (run make first)"
  exit 1
fi
if ! command -v node >/dev/null 2>&1; then
  echo "node: skipped: node not found"
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "node: skipped: npm not found"
  exit 0
fi
major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null)
case $major in
  '' | *[!0-9]*)
    echo "node: FAILED: cannot get the version of $(command -v node)"
    exit 1 ;;
esac
if [ "$major" -lt 20 ]; then
  echo "node: skipped: node $(node --version) is older than 20, the oldest that better-sqlite3 $version supports"
  exit 0
fi

# loads: does better-sqlite3 $version load in this node?
loads() {
  (cd "$dir" && node -e "
    if (require('better-sqlite3/package.json').version !== '$version') process.exit(1);
    new (require('better-sqlite3'))(':memory:').close();" >/dev/null 2>&1)
}

mkdir -p "$dir"
if loads; then
  echo "node: using better-sqlite3 $version from $dir (already installed)"
else
  echo "node: installing better-sqlite3 $version into $dir (once; a few minutes when it compiles)"
  rm -rf "$dir/node_modules" "$dir/package-lock.json"
  printf '{\n  "private": true,\n  "dependencies": { "better-sqlite3": "%s" }\n}\n' "$version" >"$dir/package.json"
  if ! (cd "$dir" && npm install --no-audit --no-fund --foreground-scripts) >"$dir/npm-install.log" 2>&1; then
    tail -n 20 "$dir/npm-install.log"
    # The registry out of reach is not a failure of the extension: say so and skip.
    # Any other failed install (a build error, a missing script) is a failure.
    if grep -Eq 'ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNREFUSED|ECONNRESET|ENETUNREACH|network' \
      "$dir/npm-install.log" && ! [ -d "$dir/node_modules/better-sqlite3" ]; then
      echo "node: skipped: the npm registry could not be reached (log: $dir/npm-install.log)"
      exit 0
    fi
    echo "node: FAILED: npm install of better-sqlite3 $version failed (log: $dir/npm-install.log)"
    exit 1
  fi
  if ! loads; then
    tail -n 20 "$dir/npm-install.log"
    echo "node: FAILED: better-sqlite3 $version was installed but does not load in node $(node --version)" \
      "(did npm skip its install script? log: $dir/npm-install.log)"
    exit 1
  fi
fi

out=$(mktemp)
trap 'rm -f "$out"' EXIT
NODE_PATH=$PWD/$dir/node_modules node tests/node_test.js "$module" >"$out" 2>&1
rc=$?
cat "$out"
if [ "$rc" -ne 0 ]; then
  echo "node: FAILED: node exited with status $rc"
  exit 1
fi
if ! tail -n 1 "$out" | grep -q '^node: [1-9][0-9]* passed, 0 failed'; then
  echo "node: FAILED: no summary line with every check passed"
  exit 1
fi
