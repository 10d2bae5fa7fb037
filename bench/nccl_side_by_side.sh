#!/usr/bin/env bash
# cctune's NCCL AllReduce timings next to an independent reference loop (tests/gpu/ref_allreduce.cu:
# plain ncclAllReduce, nccl-tests' method, one process driving all local GPUs), same sizes,
# float32 sum out-of-place, same -w/-n. Prints per size: both times, the ratio cctune/ref, busbw.
#   bench/nccl_side_by_side.sh BUILD_DIR [OUTPUT_DIR]      (OUTPUT_DIR defaults to $OUT, else a temp dir)
# Env: SIZES (bytes, comma-separated), ITERS (-n, default 20), WARMUP (-w, default 5).
# Exits 0 with "SKIP: <reason>" without a GPU.
set -euo pipefail
export NCCL_NVLS_ENABLE=0
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

BUILD=${1:?usage: nccl_side_by_side.sh BUILD_DIR [OUTPUT_DIR]}
OUTDIR=${2:-${OUT:-}}
[[ -n "$OUTDIR" ]] || OUTDIR=$(mktemp -d /tmp/cctune-side-by-side.XXXXXX)
OUTDIR=$OUTDIR/nccl_side_by_side
mkdir -p "$OUTDIR"
SIZES=${SIZES:-8,1024,65536,1048576,16777216,134217728}
ITERS=${ITERS:-20}
WARMUP=${WARMUP:-5}

if ! command -v nvidia-smi >/dev/null 2>&1; then echo "SKIP: nvidia-smi not found"; exit 0; fi
NGPU=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
if [[ "$NGPU" -lt 1 ]]; then echo "SKIP: nvidia-smi finds no GPU"; exit 0; fi
for f in "$BUILD/cctune" "$BUILD/cctune-ref-allreduce"; do
  [[ -x "$f" ]] || { echo "FAIL: $f not found (configure with -DCCTUNE_WITH_CUDA=ON and build it)"; exit 1; }
done

echo "== reference loop: $NGPU GPU(s), -w $WARMUP -n $ITERS, sizes $SIZES"
# shellcheck disable=SC2046
timeout 900 "$BUILD/cctune-ref-allreduce" -w "$WARMUP" -n "$ITERS" -r 5 $(tr ',' ' ' <<<"$SIZES") | tee "$OUTDIR/ref.csv"

echo "== cctune sweep --backend nccl"
rm -rf "$OUTDIR/cctune"
timeout 900 "$BUILD/cctune" sweep --backend nccl --collectives allreduce --placement out -d float32 \
  --sizes "$SIZES" -w "$WARMUP" -n "$ITERS" -c 0 -o "$OUTDIR/cctune" >"$OUTDIR/cctune.stdout" 2>"$OUTDIR/cctune.stderr" \
  || { echo "FAIL: cctune sweep failed:"; tail -n 5 "$OUTDIR/cctune.stderr"; exit 1; }

python3 - "$OUTDIR/ref.csv" "$OUTDIR/cctune/results.json" <<'PY' | tee "$OUTDIR/side_by_side.txt"
import csv, json, sys
ref = {int(r["size_bytes"]): r for r in csv.DictReader(open(sys.argv[1]))}
res = json.load(open(sys.argv[2]))
pts = {p["size_bytes"]: p for r in res["runs"] if r["backend"] == "nccl" for p in r["points"] if p["status"] == "ok"}
print(f"{'size_bytes':>12} {'cctune_batch_us':>16} {'ref_us':>10} {'ratio':>7} {'cctune_iter_med_us':>19} "
      f"{'cctune_busbw':>13} {'ref_busbw':>10} {'chosen':>14}")
ratios = []
for size in sorted(set(ref) & set(pts)):
    p, r = pts[size], ref[size]
    ratio = p["batch_us"] / float(r["time_us"])
    ratios.append(ratio)
    med = (p.get("iter_us") or {}).get("median", float("nan"))
    chosen = p.get("chosen") or {}
    print(f"{size:>12} {p['batch_us']:>16.2f} {float(r['time_us']):>10.2f} {ratio:>7.3f} {med:>19.2f} "
          f"{p['busbw_GBps']:>13.2f} {float(r['busbw_GBps']):>10.2f} {chosen.get('algo','')+'/'+chosen.get('proto',''):>14}")
missing = sorted(set(ref) ^ set(pts))
if missing: print(f"sizes measured by only one side: {missing}")
if ratios:
    ratios.sort()
    print(f"ratio cctune/ref: median {ratios[len(ratios)//2]:.3f}, min {ratios[0]:.3f}, max {ratios[-1]:.3f}")
PY
echo "== outputs in $OUTDIR"
