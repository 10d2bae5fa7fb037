#!/usr/bin/env bash
# cctune's MPI-backend batch_us for AllReduce next to a plain back-to-back MPI_Allreduce loop
# (bench/mpi_allreduce_loop.cpp, no cctune code: median of 51 loops of ~1 ms), 2 ranks on this machine, float32 sum,
# out-of-place. REPS interleaved runs (reference, cctune, reference, cctune, ...); per size the
# median of each tool's runs, the ratio cctune/reference, and PASS when within 10 %.
#   bench/mpi_batch_vs_loop.sh BUILD_DIR [OUTPUT_DIR]   (OUTPUT_DIR defaults to $OUT, else a temp dir)
# Env: SIZES (bytes, comma-separated; default 8,64,512,4096), REPS (default 7), NP (default 2).
# Exit status: 0 when every size passes, 1 otherwise. Full logs under OUTPUT_DIR/mpi_batch_vs_loop.
set -euo pipefail
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

BUILD=${1:?usage: mpi_batch_vs_loop.sh BUILD_DIR [OUTPUT_DIR]}
OUTDIR=${2:-${OUT:-}}
[[ -n "$OUTDIR" ]] || OUTDIR=$(mktemp -d /tmp/cctune-mpi-bench.XXXXXX)
OUTDIR=$OUTDIR/mpi_batch_vs_loop
rm -rf "$OUTDIR" && mkdir -p "$OUTDIR"
SIZES=${SIZES:-8,64,512,4096}
REPS=${REPS:-7}
NP=${NP:-2}
REF=$BUILD/bench/mpi_allreduce_loop
for f in "$BUILD/cctune" "$REF"; do
  [[ -x "$f" ]] || { echo "FAIL: $f not found (build the cctune and mpi_allreduce_loop targets)"; exit 1; }
done
mpirun_np=(mpirun --oversubscribe -np "$NP")

echo "== $REPS interleaved runs, $NP ranks, AllReduce float32 sum out-of-place, sizes $SIZES"
for rep in $(seq 1 "$REPS"); do
  # shellcheck disable=SC2046
  timeout 300 "${mpirun_np[@]}" "$REF" $(tr ',' ' ' <<<"$SIZES") >"$OUTDIR/ref.$rep.csv" 2>"$OUTDIR/ref.$rep.stderr" \
    || { echo "FAIL: reference loop failed (run $rep):"; tail -n 5 "$OUTDIR/ref.$rep.stderr"; exit 1; }
  timeout 300 "${mpirun_np[@]}" "$BUILD/cctune" sweep --backend mpi --collectives allreduce --placement out -d float32 \
    --sizes "$SIZES" -c 0 -o "$OUTDIR/cctune.$rep" >"$OUTDIR/cctune.$rep.stdout" 2>"$OUTDIR/cctune.$rep.stderr" \
    || { echo "FAIL: cctune sweep failed (run $rep):"; tail -n 5 "$OUTDIR/cctune.$rep.stderr"; exit 1; }
  echo "   run $rep of $REPS done"
done

python3 - "$OUTDIR" "$REPS" <<'PY' | tee "$OUTDIR/summary.txt"
import csv, json, statistics, sys
out, reps = sys.argv[1], int(sys.argv[2])
ref, cct = {}, {}
for rep in range(1, reps + 1):
    for row in csv.DictReader(open(f"{out}/ref.{rep}.csv")):
        ref.setdefault(int(row["size_bytes"]), []).append(float(row["time_us"]))
    doc = json.load(open(f"{out}/cctune.{rep}/results.json"))
    for run in doc["runs"]:
        for p in run["points"]:
            if p["status"] == "ok":
                cct.setdefault(p["size_bytes"], []).append(p["batch_us"])
print(f"{'size_B':>8} {'loop_us':>9} {'cctune_us':>10} {'ratio':>6}  verdict   (medians of {reps} interleaved runs)")
ok = True
for size in sorted(set(ref) & set(cct)):
    r, c = statistics.median(ref[size]), statistics.median(cct[size])
    ratio = c / r
    good = abs(ratio - 1) <= 0.10
    ok &= good
    print(f"{size:>8} {r:>9.3f} {c:>10.3f} {ratio:>6.3f}  {'PASS' if good else 'FAIL'}")
missing = sorted(set(ref) ^ set(cct))
if missing:
    ok = False
    print(f"FAIL: sizes measured by one side only: {missing}")
print("mpi_batch_vs_loop: " + ("PASS (cctune batch_us within 10 % of the plain loop at every size)" if ok else "FAIL"))
sys.exit(0 if ok else 1)
PY
