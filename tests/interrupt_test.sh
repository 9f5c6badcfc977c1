#!/bin/sh
# interrupt_test.sh MODULE: sqlite3_interrupt() stops a remote transfer
# (tests/interrupt_test.c), against tests/http_server.py on 127.0.0.1.
# Needs a SQLite of 3.41 or later to build the harness: the amalgamation
# better-sqlite3 ships (build/node, installed by tests/node_test.sh);
# skipped without it, or for a module built with REMOTE=0.
set -e
MODULE=$1
AMALG=build/node/node_modules/better-sqlite3/deps/sqlite3
BIN=build/interrupt_test
if [ ! -f $AMALG/sqlite3.c ]; then
  echo "interrupt: 0 passed, 0 failed, 1 skipped (no SQLite >= 3.41 amalgamation in $AMALG)"
  exit 0
fi
if [ "$(sqlite3 -cmd ".load $MODULE" :memory: 'SELECT weights_remote()')" != 1 ]; then
  echo "interrupt: 0 passed, 0 failed, 1 skipped (a module built with REMOTE=0)"
  exit 0
fi
if [ ! -x $BIN ] || [ tests/interrupt_test.c -nt $BIN ]; then
  cc -O1 -w -I$AMALG -o $BIN tests/interrupt_test.c $AMALG/sqlite3.c -lpthread -ldl -lm
fi
PORTS=$(mktemp)
/usr/bin/python3 tests/http_server.py build --lifetime 120 > "$PORTS" &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; rm -f "$PORTS"' EXIT
for i in 1 2 3 4 5 6 7 8 9 10; do [ -s "$PORTS" ] && break; sleep 0.2; done
PORT=$(head -1 "$PORTS")
SQLITE_WEIGHTS_CACHE=off $BIN "$MODULE" "http://127.0.0.1:$PORT/f/stall/demo/tiny-llama.gguf" \
  "http://127.0.0.1:$PORT/f/500always/demo/tiny-llama.gguf"
