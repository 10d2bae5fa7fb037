#!/usr/bin/env bash
# `cctune sweep --csv FILE` with real NCCL on GPU 0:
#   tests/gpu/csv_gpu_check.sh BUILD_DIR [OUTPUT_DIR]     (OUTPUT_DIR defaults to $OUT, else a temp dir)
# Two workers sharing GPU 0 (shared-GPU test mode: with one rank NCCL runs no algorithm, so
# nothing could be forced or observed), NCCL's own choice and two forced configs, data checked: every row
# matches results.json point for point (tests/mpi/sweep/check_csv.py), no row has a wrong
# element, and every auto row names the algorithm NCCL chose (seen by cctune's tuner plugin).
# Exits 0 with "SKIP: <reason>" where nvidia-smi finds no GPU.
set -euo pipefail
export NCCL_NVLS_ENABLE=0  # never NVLS/multicast in tests
here=$(cd "$(dirname "$0")" && pwd)
BUILD=$(cd "${1:?usage: csv_gpu_check.sh BUILD_DIR [OUTPUT_DIR]}" && pwd)
OUTDIR=${2:-${OUT:-$(mktemp -d /tmp/cctune-csv-gpu.XXXXXX)}}/csv_gpu_check
command -v nvidia-smi >/dev/null 2>&1 || { echo "SKIP: nvidia-smi not found"; exit 0; }
[[ $(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true) -ge 1 ]] || { echo "SKIP: nvidia-smi finds no GPU"; exit 0; }
rm -rf "$OUTDIR"; mkdir -p "$OUTDIR"
CUDA_VISIBLE_DEVICES=0 "$BUILD/cctune" sweep --backend nccl --gpus 1 --test-shared-gpu 2 -b 8 -e 1M -f 8 -c 1 --max-time 0.2 \
  --configs auto,ring/simple,ring/ll --no-tune -o "$OUTDIR/sweep" --csv "$OUTDIR/points.csv" | tee "$OUTDIR/sweep.log"
python3 "$here/../mpi/sweep/check_csv.py" "$OUTDIR/sweep/results.json" "$OUTDIR/points.csv" --min-rows 30
python3 - "$OUTDIR/points.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
ok = [r for r in rows if r["status"] == "ok"]
assert ok, "no measured row"
bad = [r for r in ok if r["wrong"] != "0"]
assert not bad, f"rows with wrong elements or no data check: {bad[:2]}"
auto = [r for r in ok if r["algorithm"] == "auto"]
assert auto and all(r["chosen_algorithm"] for r in auto), "an auto row without NCCL's chosen algorithm"
print(f"PASS: {len(rows)} CSV rows match results.json; #wrong 0 everywhere; NCCL's choice on all {len(auto)} auto rows")
PY
