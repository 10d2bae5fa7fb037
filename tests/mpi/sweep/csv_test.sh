#!/usr/bin/env bash
# csv_test.sh CCTUNE OUTDIR SCHEMA: `cctune sweep --csv FILE` under mpirun, for both
# backends: the rows match results.json point for point, for a complete sweep and for one
# stopped by SIGTERM (the rows written so far stay) and its --resume; an existing FILE is refused before
# anything is measured, with one error line naming it.
set -euo pipefail
cctune=$1 out=$2 schema=$3
here=$(dirname "$0")
mpirun=("${MPIRUN:-mpirun}" --allow-run-as-root --oversubscribe)
fail() { echo "csv_test: FAIL: $*"; exit 1; }
rm -rf "$out"; mkdir -p "$out"

# 1. MPI backend, 3 ranks, both placements.
"${mpirun[@]}" -np 3 "$cctune" sweep --backend mpi -b 8 -e 64K -f 8 -c 1 --max-time 0.05 -o "$out/mpi" --csv "$out/mpi.csv" > "$out/mpi.log"
grep -q "^# csv: $out/mpi.csv" "$out/mpi.log" || fail "no '# csv:' line in the output"
python3 "$here/check_results.py" "$out/mpi/results.json" "$schema" --nranks 3 --status complete --check-wrong --min-points 6
python3 "$here/check_csv.py" "$out/mpi/results.json" "$out/mpi.csv" --min-rows 30

# 2. The same file again: refused on every rank with exit 2, nothing measured, the file kept.
cp "$out/mpi.csv" "$out/mpi.csv.before"
set +e
"${mpirun[@]}" -np 2 "$cctune" sweep --backend mpi -b 8 -e 64 -o "$out/again" --csv "$out/mpi.csv" > "$out/again.log" 2> "$out/again.err"
rc=$?
set -e
[[ $rc -eq 2 ]] || fail "existing CSV: exit $rc, expected 2"
[[ $(grep -c "cctune: error:" "$out/again.err") -eq 1 ]] || fail "existing CSV: not one error line: $(cat "$out/again.err")"
grep -q "$out/mpi.csv already exists" "$out/again.err" || fail "the error does not name the file: $(cat "$out/again.err")"
[[ ! -e $out/again/results.json ]] || fail "existing CSV: a results.json was written"
cmp -s "$out/mpi.csv" "$out/mpi.csv.before" || fail "existing CSV: the file was changed"

# 3. SIGTERM in the middle: the rows of every point results.json holds are in the CSV.
"$cctune" sweep --backend mpi --sizes 1M,2M,4M --max-time 0.5 --target-noise 1e-12 --collectives allreduce,allgather,reducescatter \
  -o "$out/term" --csv "$out/term.csv" > "$out/term.log" 2> "$out/term.err" & pid=$!
for _ in $(seq 1 600); do
  [[ -f $out/term.csv && $(wc -l < "$out/term.csv") -ge 8 ]] && break  # header, allreduce, one more point
  sleep 0.1
done
kill -TERM $pid
set +e; wait $pid; rc=$?; set -e
[[ $rc -eq 143 ]] || fail "SIGTERM: exit $rc, expected 143"
grep -q "points measured so far are in $out/term.csv" "$out/term.err" || fail "SIGTERM: the CSV is not named: $(cat "$out/term.err")"
python3 "$here/check_results.py" "$out/term/results.json" "$schema" --status interrupted --collectives allreduce
python3 "$here/check_csv.py" "$out/term/results.json" "$out/term.csv" --min-rows 7
# Resumed with a new --csv: the carried-over points and the new ones, as in results.json.
"$cctune" sweep --backend mpi --sizes 1M,2M,4M --max-time 0.5 --target-noise 1e-12 --collectives allreduce,allgather,reducescatter \
  --resume "$out/term" --csv "$out/resumed.csv" > "$out/resumed.log"
python3 "$here/check_results.py" "$out/term/results.json" "$schema" --status complete --min-points 18
python3 "$here/check_csv.py" "$out/term/results.json" "$out/resumed.csv" --min-rows 18

# 4. NCCL backend (workers run the selftest stand-in, no GPU needed), two config groups under
# mpirun, successive halving: screening measurements are not rows.
CCTUNE_NCCL_MODULE="$(dirname "$cctune")/tests/libcctune-selftest.so" "${mpirun[@]}" -np 2 "$cctune" sweep --backend nccl -b 8 -e 64K -f 8 -w 1 --min-iters 5 \
  --max-time 0.03 --transport nvlink,pcie --configs auto,ring/simple,tree/ll,ring/ll128 --strategy halving --no-tune \
  -o "$out/nccl" --csv "$out/nccl.csv" > "$out/nccl.log"
python3 - "$out/nccl/results.json" <<'PY'
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
assert [r["group"] for r in runs] == ["nvlink", "pcie"], [r["group"] for r in runs]
assert all(r.get("screened") for r in runs), "no screening measurements: the halving case is not exercised"
PY
python3 "$here/check_csv.py" "$out/nccl/results.json" "$out/nccl.csv" --min-rows 20
echo "csv_test: OK"
