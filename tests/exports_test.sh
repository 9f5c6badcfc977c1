#!/bin/sh
# exports_test.sh MODULE: the module exports one symbol, sqlite3_weights_init.
# Any other defined dynamic symbol (a helper such as gguf_type_name, which
# ggml exports too) would be bound to the first library of that name in a
# host process: ours could replace ggml's, or ggml's ours.  Lists the
# defined dynamic symbols with nm -D and fails on any other.
set -eu
module=$1
syms=$(nm -D --defined-only "$module" | awk '{print $NF}' | sort)
n=$(printf '%s\n' "$syms" | grep -c .)
if [ "$syms" != "sqlite3_weights_init" ]; then
  echo "exports: $module exports $n symbols, not only sqlite3_weights_init:" >&2
  printf '%s\n' "$syms" | grep -v '^sqlite3_weights_init$' | head -20 >&2
  exit 1
fi
echo "exports: 1 passed, 0 failed (only sqlite3_weights_init)"
