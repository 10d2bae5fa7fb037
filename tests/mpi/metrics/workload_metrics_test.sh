#!/usr/bin/env bash
# workload_metrics_test.sh CCTUNE SOURCE_DIR OUTDIR: `cctune workload import/merge --prometheus
# FILE` on the recorded H100 captures (tests/fixtures/workload): promtool accepts every file;
# the per-rank flight-recorder imports merged give calls per step equal to workload.json's, and
# time per step and shares summing to 1.
set -euo pipefail
cctune=$1 src=$2 out=$3
here=$(cd "$(dirname "$0")" && pwd)
caps=$src/tests/fixtures/workload/captures-h100-torch2.11-nccl2.28.9
fail() { echo "workload_metrics_test: FAIL: $*"; exit 1; }
rm -rf "$out"; mkdir -p "$out"

files=()
for job in ddp fsdp alltoall; do
  "$cctune" workload import "$caps/$job/nccl.rank0.log" "$caps/$job/nccl.rank1.log" --steps 4 -o "$out/$job.log.json" \
    --prometheus "$out/$job.log.prom" > "$out/$job.log.out"
  grep -q "^# metrics: $out/$job.log.prom" "$out/$job.log.out" || fail "$job: no '# metrics:' line"
  for r in 0 1; do
    "$cctune" workload import "$caps/$job/flight.rank$r.json" --steps 4 -o "$out/$job.fr$r.json" > /dev/null
  done
  "$cctune" workload merge "$out/$job.fr0.json" "$out/$job.fr1.json" -o "$out/$job.fr.json" --prometheus "$out/$job.fr.prom" > /dev/null
  files+=("$out/$job.log.prom" "$out/$job.fr.prom")
done
"$here/../../support/promtool_check.sh" "${files[@]}" || exit $?
python3 "$here/check_workload_metrics.py" "$out"

set +e
"$cctune" workload import "$caps/ddp/nccl.rank0.log" -o "$out/bad.json" --prometheus "$out/bad.metrics" > /dev/null 2> "$out/bad.err"
rc=$?
set -e
[[ $rc -eq 2 ]] || fail "--prometheus bad.metrics: exit $rc, expected 2"
grep -q "bad.metrics.*\.prom" "$out/bad.err" || fail "the error does not name the file: $(cat "$out/bad.err")"
[[ ! -e $out/bad.json ]] || fail "workload.json was written despite the bad metrics file name"
echo "workload_metrics_test: OK"
