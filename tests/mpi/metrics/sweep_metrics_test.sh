#!/usr/bin/env bash
# sweep_metrics_test.sh CCTUNE OUTDIR: `cctune sweep --prometheus FILE` under mpirun (MPI
# backend, loopback): promtool accepts the file, it holds one busbw and one time series per ok
# point of results.json with the same figures, and a name the textfile collector would ignore
# is refused before anything runs (exit 2, one line).
set -euo pipefail
cctune=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd)
mpirun=("${MPIRUN:-mpirun}" --allow-run-as-root --oversubscribe)
fail() { echo "sweep_metrics_test: FAIL: $*"; exit 1; }
rm -rf "$out"; mkdir -p "$out"

"${mpirun[@]}" -np 3 "$cctune" sweep --backend mpi -b 8 -e 64K -f 8 -c 1 --max-time 0.05 --collectives allreduce,broadcast \
  -o "$out/run" --prometheus "$out/cctune.prom" > "$out/run.log"
grep -q "^# metrics: $out/cctune.prom" "$out/run.log" || fail "no '# metrics:' line in the output"
ls -a "$out" | grep -q '\.tmp' && fail "a temporary file was left beside the metrics file"
"$here/../../support/promtool_check.sh" "$out/cctune.prom" || exit $?
python3 "$here/check_sweep_metrics.py" "$out/run/results.json" "$out/cctune.prom"

set +e
"${mpirun[@]}" -np 2 "$cctune" sweep --backend mpi -b 8 -e 64 -o "$out/bad" --prometheus "$out/cctune.txt" > "$out/bad.log" 2> "$out/bad.err"
rc=$?
set -e
[[ $rc -eq 2 ]] || fail "--prometheus cctune.txt: exit $rc, expected 2"
[[ $(grep -c "cctune: error:" "$out/bad.err") -eq 1 ]] || fail "not one error line: $(cat "$out/bad.err")"
grep -q "cctune.txt.*\.prom" "$out/bad.err" || fail "the error does not name the file and the suffix: $(cat "$out/bad.err")"
[[ ! -e $out/bad/results.json ]] || fail "a sweep ran despite the bad metrics file name"
echo "sweep_metrics_test: OK"
