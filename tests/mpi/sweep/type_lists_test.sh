#!/usr/bin/env bash
# type_lists_test.sh CCTUNE OUTDIR SCHEMA: `-d int32,float32 --op sum,max --collectives all -c 1`
# under mpirun -np 4: one table section per (collective, dtype, op, root), as nccl-tests needs
# one run per combination; 0 wrong; results.json holds points of every combination (reductions
# once per dtype and op, the others once per dtype) and the busbw formula holds for each.
set -euo pipefail
cctune=$1 out=$2 schema=$3
rm -rf "$out"; mkdir -p "$(dirname "$out")"
"${MPIRUN:-mpirun}" --allow-run-as-root --oversubscribe -np 4 "$cctune" sweep --backend mpi --collectives all -c 1 \
  -d int32,float32 --op sum,max --sizes 8,1000,64K --max-time 0.05 --min-iters 5 -o "$out" >"$out.table.txt"
all=allreduce,allgather,reducescatter,broadcast,reduce,alltoall,sendrecv,gather,scatter
python3 "$(dirname "$0")/check_results.py" "$out/results.json" "$schema" --nranks 4 \
  --collectives "$all" --status complete --check-wrong --min-points 9 --roots 0
fail() { echo "FAIL: $*"; cat "$out.table.txt"; exit 1; }
sections=$(grep -c '^# [a-z]*  backend mpi, 4 ranks, ' "$out.table.txt" || true)
# 3 reductions x 2 dtypes x 2 ops + 6 others x 2 dtypes
[[ $sections -eq 24 ]] || fail "$sections table sections, want 24"
for d in int32 float32; do
  for op in sum max; do
    for c in allreduce reducescatter; do
      grep -qx "# $c  backend mpi, 4 ranks, $d, op $op" "$out.table.txt" || fail "no $c table for $d $op"
    done
    grep -qx "# reduce  backend mpi, 4 ranks, $d, op $op, root 0" "$out.table.txt" || fail "no reduce table for $d $op"
  done
  for c in allgather alltoall sendrecv; do
    grep -qx "# $c  backend mpi, 4 ranks, $d" "$out.table.txt" || fail "no $c table for $d"
  done
  for c in broadcast gather scatter; do
    grep -qx "# $c  backend mpi, 4 ranks, $d, root 0" "$out.table.txt" || fail "no $c table for $d"
  done
done
# Every row of a section shows its section's type and op (nccl-tests' type/redop columns).
awk '/^# [a-z]+  backend/ { split($0, f, ", "); type = f[3]; op = (f[4] ~ /^op /) ? substr(f[4], 4) : "none"; next }
     /^ +[0-9]/ { t = ($3 == "float") ? "float32" : $3; if (t != type || $4 != op) { print "row " $0 " in " type "/" op; bad = 1 } }
     END { exit bad }' "$out.table.txt" || fail "a row's type or redop differs from its section"
python3 - "$out/results.json" <<'PY'
import json, sys
points = [p for run in json.load(open(sys.argv[1]))["runs"] for p in run["points"]]
reductions = {"allreduce", "reducescatter", "reduce"}
seen = {}
for p in points:
    key = (p["collective"], p["dtype"], p["op"] if p["collective"] in reductions else "-")
    seen[key] = seen.get(key, 0) + 1
    # MPI_Bcast has one buffer: out-of-place broadcast is a skip with that reason.
    skip_ok = p["collective"] == "broadcast" and not p["in_place"] and p["status"] == "skipped"
    assert skip_ok or (p["status"] == "ok" and p["wrong"] == 0), p
want = {(c, d, o) for c in reductions for d in ("int32", "float32") for o in ("sum", "max")}
want |= {(c, d, "-") for c in ("allgather", "broadcast", "alltoall", "sendrecv", "gather", "scatter") for d in ("int32", "float32")}
assert set(seen) == want, sorted(set(seen) ^ want)
counts = set(seen.values())
assert counts == {6}, counts  # 3 sizes x 2 placements each
print(f"type_lists_test: {len(want)} combinations, 6 points each")
PY
# report.html: one chart section per collective, dtype, op (not sum) and root, the new ones too.
for h in "allreduce int32 max out-of-place" "reduce float32 max root 0 in-place" "broadcast int32 root 0 in-place" \
         "alltoall float32 out-of-place" "sendrecv int32 in-place" "gather float32 root 0 out-of-place" "scatter int32 root 0 in-place"; do
  grep -q ">$h<" "$out/report.html" || fail "report.html has no section \"$h\""
done
# compare keys series by op and root: the run against itself gives every table ratio 1.
"$cctune" compare "$out/results.json" "$out/results.json" --csv >"$out.compare.csv"
python3 - "$out.compare.csv" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["section"] == "compare" and r["ratio"]]
ops = {(r["collective"], r["op"]) for r in rows}
assert ("allreduce", "max") in ops and ("allreduce", "sum") in ops and ("allgather", "") in ops, ops
assert all(abs(float(r["ratio"]) - 1) < 1e-9 for r in rows), "a series mixed ops or roots"
assert {r["root"] for r in rows if r["collective"] == "gather"} == {"0"}
PY
# --resume with one more size keeps every earlier point (small sizes were raised to whole
# elements per rank: 8 B allgather is 16 B) and measures only the new size of each combination.
"${MPIRUN:-mpirun}" --allow-run-as-root --oversubscribe -np 4 "$cctune" sweep --backend mpi --collectives all -c 1 \
  -d int32,float32 --op sum,max --sizes 8,1000,64K,256K --max-time 0.05 --min-iters 5 --resume "$out" >"$out.resumed.txt"
python3 - "$out/results.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
points = [p for run in r["runs"] for p in run["points"]]
keys = {(p["collective"], p["dtype"], p["op"], p.get("root"), p["in_place"], p["size_bytes"]) for p in points}
assert len(points) == len(keys) == 24 * 4 * 2, (len(points), len(keys))
assert r["meta"]["settings"]["resumed"][-1]["points_kept"] == 24 * 3 * 2
PY
echo "type_lists_test: OK"
