#!/usr/bin/env bash
# one_rank_test.sh CCTUNE OUTDIR SCHEMA: a one-rank MPI sweep (review N15: an in-place
# allreduce on one rank is a no-op, timed at 0.01 us, and read as 70 TB/s). On one rank nothing
# crosses ranks, so algbw and busbw are 0 in results.json, the CSV and the table, whose section
# headers say why; the times are kept.
set -euo pipefail
cctune=$1 out=$2 schema=$3
here=$(dirname "$0")
fail() { echo "one_rank_test: FAIL: $*"; exit 1; }
rm -rf "$out"; mkdir -p "$out"

"${MPIRUN:-mpirun}" --allow-run-as-root --oversubscribe -np 1 "$cctune" sweep --backend mpi -b 8 -e 64K -f 8 -c 1 --max-time 0.05 \
  --collectives allreduce,broadcast -o "$out/sweep" --csv "$out/sweep.csv" > "$out/sweep.log"
python3 "$here/check_results.py" "$out/sweep/results.json" "$schema" --nranks 1 --collectives allreduce,broadcast --status complete \
  --check-wrong --min-points 10
python3 "$here/check_csv.py" "$out/sweep/results.json" "$out/sweep.csv" --min-rows 20
python3 - "$out/sweep/results.json" <<'PY' || fail "results.json"
import json, sys
points = [p for r in json.load(open(sys.argv[1]))["runs"] for p in r["points"] if p["status"] == "ok"]
assert len(points) >= 15, len(points)  # broadcast is in place only on MPI
for p in points:
    assert p["algbw_GBps"] == 0 and p["busbw_GBps"] == 0, p
    assert p["batch_us"] > 0, p
PY
[[ $(grep -c "^# .*1 ranks.*one rank: nothing crosses ranks, algbw and busbw are 0" "$out/sweep.log") -eq 2 ]] ||
  fail "each table section should say why its bandwidths are 0: $(grep '^# .*ranks' "$out/sweep.log")"
# Data rows: out-of-place algbw, busbw (columns 6, 7) and in-place (12, 13); "-" where skipped.
rows=$(awk '!/^#/ && NF >= 16' "$out/sweep.log")
[[ $(wc -l <<< "$rows") -eq 10 ]] || fail "expected 10 table rows: $(cat "$out/sweep.log")"
bad=$(awk 'function z(v) { return v == "0.00" || v == "-" }
           !/^#/ && NF >= 16 && !(z($6) && z($7) && z($12) && z($13))' "$out/sweep.log")
[[ -z $bad ]] || fail "table rows with a bandwidth on one rank: $bad"
echo "one_rank_test: OK"
