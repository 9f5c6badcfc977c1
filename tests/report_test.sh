#!/bin/sh
# report_test.sh MODULE: weights_report() checked in headless Chromium
# (tests/report_test.py), from the repository root:
#
#   sh tests/report_test.sh build/weights.so
#
# Chromium is Debian's `chromium`; when it is missing it is installed with
# tests/deps.sh as root, else the test is skipped with the reason.  The pages,
# screenshots and generated files go to build/report-test.  Last line:
# "report: N passed, M failed, K skipped" or "report: skipped: REASON".
set -u
module=${1:-build/weights.so}
out=build/report-test

if [ ! -f "$module" ]; then
  echo "report: FAILED: $module not found (run make first)"
  exit 1
fi
chrome=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chrome" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    sh tests/deps.sh chromium || { echo "report: skipped: chromium could not be installed"; exit 0; }
    chrome=$(command -v chromium || true)
  fi
  if [ -z "$chrome" ]; then
    echo "report: skipped: chromium not installed (apt-get install chromium, as root)"
    exit 0
  fi
fi
rm -rf "$out"
mkdir -p "$out"
exec /usr/bin/python3 tests/report_test.py "$module" "$chrome" "$out"
