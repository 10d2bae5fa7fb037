#!/usr/bin/env bash
# bad_values_test.sh CCTUNE_TEST: each malformed test-only variable stops cctune-test at start
# with one line naming it (exit 2); a good one lets it run; cctune itself ignores them all.
set -uo pipefail
cctune_test=$1
cctune="$(dirname "$cctune_test")/cctune"
failures=0
fail() { echo "FAIL $*"; failures=$((failures+1)); }
expect_usage() {  # VAR=VALUE NAME_IN_MESSAGE
  local err rc
  err=$(env "$1" "$cctune_test" topo --json 2>&1 >/dev/null); rc=$?
  if [[ $rc -ne 2 ]] || [[ $(wc -l <<<"$err") -ne 1 ]] || ! grep -q "^cctune: error: .*$2" <<<"$err"; then
    fail "$1: rc=$rc, stderr: $err"
  fi
  if ! env "$1" "$cctune" topo --json >/dev/null 2>&1; then fail "cctune reacted to $1"; fi
}
expect_usage "CCTUNE_TEST_FAULT=sleep:1:3" "CCTUNE_TEST_FAULT='sleep:1:3' is malformed"
expect_usage "CCTUNE_TEST_FAULT=hang:x:3" "CCTUNE_TEST_FAULT='hang:x:3' is malformed"
expect_usage "CCTUNE_TEST_FAULT=hang:-1:3" "CCTUNE_TEST_FAULT='hang:-1:3' is malformed"
expect_usage "CCTUNE_TEST_SLOW_RANK=two:300" "CCTUNE_TEST_SLOW_RANK='two:300' is not RANK:DELAY_US"
expect_usage "CCTUNE_TEST_SLOW_RANK=1:2e6" "CCTUNE_TEST_SLOW_RANK='1:2e6' is not RANK:DELAY_US"
expect_usage "CCTUNE_TEST_PROBE_STALL=1" "CCTUNE_TEST_PROBE_STALL='1' is not RANK:SECONDS"
expect_usage "CCTUNE_TEST_FAKE_VERSION=nccl=1" "CCTUNE_TEST_FAKE_VERSION entry 'nccl=1' is not RANK:KEY=VALUE"
CCTUNE_TEST_FAULT=abort:0:2:pcie CCTUNE_TEST_SLOW_RANK=1:200 "$cctune_test" topo --json >/dev/null 2>&1 || fail "good values refused"
[[ $failures -eq 0 ]] && echo "bad_values_test: OK" || { echo "bad_values_test: $failures failure(s)"; exit 1; }
