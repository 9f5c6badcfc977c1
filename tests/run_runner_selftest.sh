#!/bin/sh
# Self-test of the test runner (tests/slt.c): a runner that passes everything
# would otherwise look just like a working one.
#
#   usage: sh tests/run_runner_selftest.sh build/slt      (from the repository root)
#
# tests/runner/must_fail.test marks each record with "# expect-fail: KIND",
# "# expect-pass" or "# expect-skip" on the line(s) before it.  This script
# expects exactly one line "FILE:LINE: KIND" per expect-fail marker (LINE is
# the record's first line), no other failure, and a TOTAL line that agrees
# with the markers.  It prints one line per check and exits 1 on any mismatch.

SLT=$1
DIR=tests/runner
if [ -z "$SLT" ] || [ ! -x "$SLT" ] || [ ! -d "$DIR" ]; then
  echo "usage: sh tests/run_runner_selftest.sh path/to/slt   (from the repository root)" >&2
  exit 2
fi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/slt-selftest.XXXXXX") || exit 2
trap 'rm -rf "$TMP"' EXIT
trap 'exit 2' INT TERM
mkdir "$TMP/tmpdir"
nbad=0

# check DESCRIPTION EXPECTED ACTUAL
check() {
  if [ "$2" = "$3" ]; then
    echo "ok:     $1"
  else
    echo "FAILED: $1: expected '$2', got '$3'"
    nbad=$((nbad + 1))
  fi
}

# run ARG...: run the runner; stdout in $TMP/out, stderr in $TMP/err, status in $rc
run() {
  TMPDIR="$TMP/tmpdir" "$SLT" "$@" >"$TMP/out" 2>"$TMP/err"
  rc=$?
}

# totals: "P F S" from the last line of stdout, which must be the TOTAL line
totals() {
  tail -n 1 "$TMP/out" |
    sed -n 's/^TOTAL: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\1 \2 \3/p'
}

# has LINE: "yes" if stdout holds exactly this line
has() {
  if grep -Fqx -- "$1" "$TMP/out"; then echo yes; else echo no; fi
}

# --- must_fail.test: exactly the marked failures ---
F=$DIR/must_fail.test
awk -v f="$F" '
  /^# expect-fail: / { kind = substr($0, 16); want = "fail"; next }
  /^# expect-pass/   { want = "pass"; next }
  /^# expect-skip/   { want = "skip"; next }
  /^#/ || NF == 0    { next }
  want != ""         { if (want == "fail") print f ":" FNR ": " kind > "/dev/stderr"
                       n[want]++; want = "" }
  END { printf "%d %d %d\n", n["pass"], n["fail"], n["skip"] }
' "$F" >"$TMP/counts" 2>"$TMP/want"
run "$F"
check "must_fail.test: exit status" 1 "$rc"
check "must_fail.test: TOTAL line (passed failed skipped)" "$(cat "$TMP/counts")" "$(totals)"
while IFS= read -r line; do
  check "must_fail.test: reports '$line'" yes "$(has "$line")"
done <"$TMP/want"
grep "^$F:[0-9]*: " "$TMP/out" | sort >"$TMP/got"
sort "$TMP/want" >"$TMP/want.sorted"
check "must_fail.test: no unexpected failure lines" "" \
  "$(comm -13 "$TMP/want.sorted" "$TMP/got" | tr '\n' '|')"
check "must_fail.test: nothing on stderr" "" "$(cat "$TMP/err")"

# --- must_pass.test: everything passes, halt skips the rest ---
F=$DIR/must_pass.test
run "$F"
check "must_pass.test: exit status" 0 "$rc"
check "must_pass.test: TOTAL line (passed failed skipped)" "33 0 4" "$(totals)"
check "must_pass.test: summary line" yes "$(has "$F: 0 errors out of 33 records. 4 skipped.")"
check "must_pass.test: halt reported" yes "$(has "$F:$(grep -n '^halt$' "$F" | cut -d: -f1): halt")"
check "must_pass.test: __TEST_DIR__ removed at exit" "" "$(ls -A "$TMP/tmpdir")"

# --- require_missing.test: records after a missing "require file" are skipped ---
F=$DIR/require_missing.test
run "$F"
check "require_missing.test: exit status" 0 "$rc"
check "require_missing.test: TOTAL line (passed failed skipped)" "1 0 3" "$(totals)"
check "require_missing.test: skip reported" yes \
  "$(has "$F:9: skipped: tests/runner/no-such-fixture.gguf not found")"

# --- a file whose records are all skipped by "require file" does not fail ---
printf 'require file %s/nothing-here\n\nstatement ok\nnot SQL\n\nstatement ok\nnot SQL\n' \
  "$TMP" >"$TMP/require_only.test"
run "$TMP/require_only.test"
check "require-only file: TOTAL line (nothing passed, so exit 1)" "0 0 2" "$(totals)"
check "require-only file: exit status" 1 "$rc"

# --- files that run no record fail ---
: >"$TMP/empty.test"
run "$TMP/empty.test"
check "empty file: exit status" 1 "$rc"
check "empty file: reported" yes "$(has "$TMP/empty.test: no records were run")"
printf '# only a comment\n\n' >"$TMP/comment.test"
run "$TMP/comment.test"
check "comment-only file: exit status" 1 "$rc"
run "$TMP/empty.test" "$DIR/must_pass.test"
check "empty file next to a passing one: exit status" 1 "$rc"

# --- usage, I/O and load errors exit 2 ---
run
check "no arguments: exit status" 2 "$rc"
run --no-such-option "$DIR/must_pass.test"
check "unknown option: exit status" 2 "$rc"
run "$TMP/no-such-file.test"
check "unreadable file: exit status" 2 "$rc"
run -e "$TMP/no-such-extension.so" "$DIR/must_pass.test"
check "extension load failure: exit status" 2 "$rc"
check "extension load failure: message" yes \
  "$(grep -q "cannot load extension $TMP/no-such-extension.so" "$TMP/err" && echo yes || echo no)"

if [ "$nbad" -ne 0 ]; then
  echo "runner self-test: $nbad check(s) FAILED"
  exit 1
fi
echo "runner self-test: all checks passed"
