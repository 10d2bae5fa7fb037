#!/usr/bin/env bash
# Several data types and ops in one NCCL sweep, on GPU 0:
#   tests/gpu/type_lists_gpu_check.sh BUILD_DIR [OUTPUT_DIR]    (OUTPUT_DIR defaults to $OUT, else a temp dir)
# Two workers share GPU 0 (shared-GPU test mode). `-d float32,bfloat16 --op sum,avg` over
# allreduce, reducescatter and allgather with the data check: one table per (collective, dtype,
# op of a reduction), points for each combination in results.json, 0 wrong. bfloat16 and avg are
# what the MPI backend lacks: NCCL must run them (collectives/capabilities.cpp). Then the
# default space's dry run plans all nine collectives with the p2p groups.
# Exits 0 with "SKIP: <reason>" where nvidia-smi finds no GPU.
set -euo pipefail
export NCCL_NVLS_ENABLE=0  # never NVLS/multicast in tests
BUILD=$(cd "${1:?usage: type_lists_gpu_check.sh BUILD_DIR [OUTPUT_DIR]}" && pwd)
OUTDIR=${2:-${OUT:-$(mktemp -d /tmp/cctune-lists-gpu.XXXXXX)}}/type_lists_gpu_check
command -v nvidia-smi >/dev/null 2>&1 || { echo "SKIP: nvidia-smi not found"; exit 0; }
[[ $(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true) -ge 1 ]] || { echo "SKIP: nvidia-smi finds no GPU"; exit 0; }
rm -rf "$OUTDIR"; mkdir -p "$OUTDIR"
CUDA_VISIBLE_DEVICES=0 "$BUILD/cctune" sweep --backend nccl --gpus 1 --test-shared-gpu 2 --collectives allreduce,reducescatter,allgather \
  -d float32,bfloat16 --op sum,avg -b 1K -e 1M -f 32 -c 1 --max-time 0.2 --no-tune -o "$OUTDIR/sweep" | tee "$OUTDIR/sweep.log"
sections=$(grep -c '^# [a-z]*  backend nccl, ' "$OUTDIR/sweep.log" || true)
[[ $sections -eq 10 ]] || { echo "FAIL: $sections table sections, want 10 (2 reductions x 2 dtypes x 2 ops + allgather x 2 dtypes)"; exit 1; }
python3 - "$OUTDIR/sweep/results.json" <<'PY'
import json, sys
points = [p for run in json.load(open(sys.argv[1]))["runs"] for p in run["points"]]
combos = {(p["collective"], p["dtype"], p["op"] if p["collective"] != "allgather" else "-") for p in points}
want = {(c, d, o) for c in ("allreduce", "reducescatter") for d in ("float32", "bfloat16") for o in ("sum", "avg")}
want |= {("allgather", d, "-") for d in ("float32", "bfloat16")}
assert combos == want, sorted(combos ^ want)
bad = [p for p in points if p["status"] != "ok" or p["wrong"] != 0]
assert not bad, f"points not ok or with wrong elements: {bad[:2]}"
print(f"PASS: {len(points)} points over {len(want)} combinations, all ok, 0 wrong")
PY
CUDA_VISIBLE_DEVICES=0 "$BUILD/cctune" sweep --space default --dry-run --gpus 1 --test-shared-gpu 2 >"$OUTDIR/dry_run.txt" 2>&1 || true
for part in "(alltoall) ignores the tuner plugin" "(scatter) ignores the tuner plugin" "group p2p-nvl-chunk-1M" "NCCL runs broadcast with ring only"; do
  grep -qF "$part" "$OUTDIR/dry_run.txt" || { echo "FAIL: the default space's dry run lacks \"$part\""; cat "$OUTDIR/dry_run.txt"; exit 1; }
done
echo "PASS: the default space plans all nine collectives and the p2p groups"
