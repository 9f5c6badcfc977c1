#!/bin/sh
# fixture_skips.sh LOGDIR: the closing summary of make test: how many checks
# were skipped because the fixture folder ($FIXTURES, default
# ../shared/fixtures) is absent, from the logs tests/logged.sh saved:
#   sql.log       run_sql_examples.sh's "(N because ... is absent)"
#   python.log    python_test.py's "(N because ... is absent)"
#   slt-asan.log, slt-valgrind.log   the records of each .test file that a
#                 "require file $FIXTURES/..." skipped (the file's
#                 "K skipped"); the plain run that make test ends with
#                 reads the same files, so it skips as many again.
# Prints one line: "skipped because DIR is absent: N checks (...)".
dir=$1
fixtures=${FIXTURES:-../shared/fixtures}
because() { # the N of "(N because" in the last line of a log that has one
  sed -n 's/.*(\([0-9][0-9]*\) because .* is absent).*/\1/p' "$1" 2>/dev/null | tail -1
}
slt() { # records skipped by a missing fixture, summed over the files of one run
  awk -v fx="$fixtures" '
    index($0, ": skipped: " fx "/") > 0 { split($0, p, ":"); hit[p[1]] = 1 }
    / errors out of [0-9]+ records\. [0-9]+ skipped\.$/ {
      f = substr($0, 1, index($0, ": ") - 1)
      if (f in hit) n += $(NF - 1)
    }
    END { print n + 0 }' "$1" 2>/dev/null || echo 0
}
sql=$(because "$dir/sql.log")
py=$(because "$dir/python.log")
asan=$(slt "$dir/slt-asan.log")
vg=$(slt "$dir/slt-valgrind.log")
sql=${sql:-0} py=${py:-0}
total=$((sql + py + asan + vg + vg))
echo "skipped because $fixtures is absent: $total checks" \
  "(sql examples $sql, python $py, slt records $asan under ASan + $vg under valgrind + $vg in the plain run below)"
