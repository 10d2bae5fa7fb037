#!/usr/bin/env bash
# promtool_check.sh FILE...: `promtool check metrics` on each metrics file; exit 0 when it
# accepts all (its lint included: a warning fails too), 1 otherwise.
# promtool comes with Debian's prometheus package, which `tools/setup.sh --test` installs.
# Missing while the rest of setup's test packages are there: a failure (the list grew and
# setup was not re-run). Missing along with them: setup never ran here, exit 77 (CTest: skip).
set -uo pipefail
if ! command -v promtool >/dev/null 2>&1; then
  if dpkg-query -W -f='${Status}' chromium 2>/dev/null | grep -q "install ok installed"; then
    echo "FAIL: promtool is missing; run tools/setup.sh --test (it installs Debian's prometheus package)" >&2
    exit 1
  fi
  echo "SKIP: promtool not installed (tools/setup.sh --test has not run here)" >&2
  exit 77
fi
status=0
for f in "$@"; do
  if [[ ! -s "$f" ]]; then echo "FAIL: $f is missing or empty" >&2; status=1; continue; fi
  if ! out=$(promtool check metrics <"$f" 2>&1); then
    echo "FAIL: promtool check metrics < $f:" >&2
    echo "$out" >&2
    status=1
  elif [[ -n "$out" ]]; then
    # promtool exits 0 on lint problems in some versions: what it prints is a finding too.
    echo "FAIL: promtool check metrics < $f printed: $out" >&2
    status=1
  fi
done
exit $status
