#!/bin/sh
# run_sql_examples.sh MODULE: run every recipe of the cookbook (sql/*.sql, on
# the files `make demo` writes into build/demo) and every fixture variant
# (tests/sql_fixtures/*.sql, the same kind of queries on the real files of
# ../shared/fixtures) through the sqlite3 shell with the extension loaded,
# and compare the output with tests/sql_expected/NAME.out and
# tests/sql_fixtures/NAME.out, so that the cookbook cannot drift.
# The fixture variants are skipped when the fixture folder is absent; its
# location is $FIXTURES (default ../shared/fixtures: the files name that
# path, which is replaced by $FIXTURES when it differs).
# The shell's exit status is checked too (a crash after the output counts).
# Set UPDATE=1 to rewrite the expected files (then review the diff).
set -u
module=$1
fixtures=${FIXTURES:-../shared/fixtures}
pass=0 fail=0 skip=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for sql in sql/*.sql tests/sql_fixtures/*.sql; do
  name=$(basename "$sql" .sql)
  case $sql in
    sql/*) expected=tests/sql_expected/$name.out ;;
    *) expected=${sql%.sql}.out ;;
  esac
  if grep -q '\.\./shared/fixtures' "$sql" && [ ! -d "$fixtures" ]; then
    echo "$sql: skipped ($fixtures not found)"
    skip=$((skip + 1))
    continue
  fi
  if ! sed "s|\.\./shared/fixtures|$fixtures|g" "$sql" |
       sqlite3 -bail -cmd ".load ./$module" :memory: > "$out" 2>&1; then
    echo "$sql: FAILED: sqlite3 exited with an error"
    cat "$out"
    fail=$((fail + 1))
    continue
  fi
  if [ "${UPDATE:-0}" = 1 ]; then
    cp "$out" "$expected"
  fi
  if [ ! -f "$expected" ]; then
    echo "$sql: FAILED: no $expected"
    fail=$((fail + 1))
  elif ! diff -u "$expected" "$out"; then
    echo "$sql: FAILED: output differs from $expected"
    fail=$((fail + 1))
  else
    pass=$((pass + 1))
  fi
done
echo "sql examples: $pass passed, $fail failed, $skip skipped ($skip because $fixtures is absent)"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
