#!/usr/bin/env bash
# SIGTERM in the middle of a sweep leaves a valid results.json holding every collective
# completed before the signal, with status "interrupted", and exits 143.
set -euo pipefail
cctune=$1 out=$2 schema=$3
here=$(dirname "$0")
check_interrupted() {  # $1: results.json
  python3 "$here/check_results.py" "$1" "$schema" --status interrupted --collectives allreduce
  python3 - "$1" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
pts = [p for r in doc["runs"] for p in r["points"]]
ar = [p for p in pts if p["collective"] == "allreduce"]
assert len(ar) == 2 * 3, f"allreduce incomplete: {len(ar)} points"
assert doc["runs"][0]["status"] == "interrupted", doc["runs"][0]["status"]
print("sigterm_test: interrupted results hold the completed allreduce (%d points)" % len(pts))
PY
}
wait_for_allreduce() {  # $1: results.json; waits until allreduce is journalled beside it
  local journal=${1%results.json}results.journal
  for _ in $(seq 1 600); do
    if [[ -f $journal ]] && python3 -c "import json,sys; d=[json.loads(l) for l in open(sys.argv[1]) if l.endswith('\n')][1:]; sys.exit(0 if any(x['point']['collective']=='allgather' for x in d) or len(d)>=6 else 1)" "$journal" 2>/dev/null; then
      return 0
    fi
    sleep 0.1
  done
  echo "sigterm_test: FAIL: allreduce never completed"; return 1
}
# Every point runs its full time cap (an unreachable noise target), so the sweep is still
# busy with later collectives when the signal comes.
args=(sweep --backend mpi --sizes 1M,2M,4M --max-time 0.5 --target-noise 1e-12 --collectives allreduce,allgather,reducescatter)

# 1. A singleton (no launcher): the signal reaches cctune directly.
rm -rf "$out"
"$cctune" "${args[@]}" -o "$out/single" & pid=$!
wait_for_allreduce "$out/single/results.json"
kill -TERM $pid
set +e; wait $pid; rc=$?; set -e
[[ $rc -eq 143 ]] || { echo "sigterm_test: FAIL: singleton exit code $rc, expected 143"; exit 1; }
check_interrupted "$out/single/results.json"

# 2. Under mpirun: SIGTERM to one rank only; the ranks agree at the next point and stop together.
"${MPIRUN:-mpirun}" --allow-run-as-root --oversubscribe -np 2 "$cctune" "${args[@]}" -o "$out/mpi" & pid=$!
wait_for_allreduce "$out/mpi/results.json"
rank_pid=$(pgrep -P $pid | head -1)
[[ -n $rank_pid ]] || { echo "sigterm_test: FAIL: no rank process under mpirun"; exit 1; }
kill -TERM "$rank_pid"
set +e; wait $pid; rc=$?; set -e
[[ $rc -ne 0 ]] || { echo "sigterm_test: FAIL: mpirun exited 0 after SIGTERM"; exit 1; }
check_interrupted "$out/mpi/results.json"
echo "sigterm_test: OK (singleton rc=143, mpirun rc=$rc)"
