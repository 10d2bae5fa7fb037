#!/usr/bin/env bash
# cctune diagnose stopped by SIGTERM while a stage measures: that stage ends at its next point,
# no later stage starts, diagnosis.json and report.html are still written (with a note saying
# so), and the exit code is 143. A singleton, so the exit code is cctune's own (mpirun reports
# its own non-zero code). The selftest stand-in workers, slowed down, keep the stage busy.
# Usage: interrupt_test.sh CCTUNE
set -euo pipefail
cctune=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export CCTUNE_NCCL_MODULE="$(dirname "$cctune")/tests/libcctune-selftest.so" CCTUNE_SELFTEST_GPUS=2 CCTUNE_SELFTEST_SLOWDOWN=400
fail() { echo "interrupt_test: FAIL: $*"; sed 's/^/  out: /' "$work/out"; sed 's/^/  err: /' "$work/err"; exit 1; }

"$cctune" diagnose --backend nccl --bandwidth-size 1M --max-time 3 -o "$work/d" > "$work/out" 2> "$work/err" &
pid=$!
for _ in $(seq 150); do grep -q "stage intra-node: every node" "$work/out" && break; sleep 0.2; done
grep -q "stage intra-node: every node" "$work/out" || fail "the intra-node stage never started"
sleep 2
kill -TERM "$pid"
for _ in $(seq 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid"; fail "still running 60 s after SIGTERM"; fi
set +e; wait "$pid"; rc=$?; set -e
[[ $rc -eq 143 ]] || fail "exit code $rc, expected 143"
[[ -s $work/d/diagnosis.json && -s $work/d/report.html ]] || fail "diagnosis.json or report.html missing"
grep -q "interrupted by a signal" "$work/d/diagnosis.json" || fail "diagnosis.json does not say it was interrupted"
grep -q "interrupted by a signal" "$work/out" || fail "the table does not say it was interrupted"
grep -q "^verdict: interrupted, so far" "$work/out" || fail "the verdict does not say it was interrupted"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["interrupted"] is True, d.get("interrupted")' \
  "$work/d/diagnosis.json" || fail "diagnosis.json's interrupted is not true"
grep -E "^# (stage|note)" "$work/out"
echo "interrupt_test: OK (exit $rc, diagnosis.json written with the note)"
