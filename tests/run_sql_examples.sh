#!/bin/sh
# run_sql_examples.sh MODULE: run every sql/*.sql through the sqlite3 shell
# with the extension loaded and compare its output with
# tests/sql_expected/NAME.out, so that the cookbook cannot drift.
# A file that reads ../shared/fixtures is skipped when that folder is absent.
# The shell's exit status is checked too (a crash after the output counts).
# Set UPDATE=1 to rewrite the expected files (then review the diff).
set -u
module=$1
pass=0 fail=0 skip=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for sql in sql/*.sql; do
  name=$(basename "$sql" .sql)
  expected=tests/sql_expected/$name.out
  if grep -q '\.\./shared/fixtures' "$sql" && [ ! -d ../shared/fixtures ]; then
    echo "sql/$name.sql: skipped (../shared/fixtures not found)"
    skip=$((skip + 1))
    continue
  fi
  if ! sqlite3 -bail -cmd ".load ./$module" :memory: < "$sql" > "$out" 2>&1; then
    echo "sql/$name.sql: FAILED: sqlite3 exited with status $?"
    cat "$out"
    fail=$((fail + 1))
    continue
  fi
  if [ "${UPDATE:-0}" = 1 ]; then
    cp "$out" "$expected"
  fi
  if [ ! -f "$expected" ]; then
    echo "sql/$name.sql: FAILED: no $expected"
    fail=$((fail + 1))
  elif ! diff -u "$expected" "$out"; then
    echo "sql/$name.sql: FAILED: output differs from $expected"
    fail=$((fail + 1))
  else
    pass=$((pass + 1))
  fi
done
echo "sql examples: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
