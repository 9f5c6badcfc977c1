#!/bin/sh
# logged.sh LOG CMD [ARG...]: run CMD with its output (stdout and stderr)
# shown as it comes and saved in LOG, and exit with CMD's status, so that
# make test can count afterwards what each step skipped
# (tests/fixture_skips.sh).
log=$1
shift
mkdir -p "$(dirname "$log")"
{
  "$@" 2>&1
  echo $? > "$log.rc"
} | tee "$log"
rc=$(cat "$log.rc")
rm -f "$log.rc"
exit "$rc"
