#!/usr/bin/env bash
# nccl_root_all_test.sh CCTUNE WORKDIR: `--root all` through the NCCL backend's supervisor and
# workers without a GPU (selftest workers, 4 of them sharing one pretend GPU): every rooted
# collective measured once per root 0..3, every other collective once, nothing failed.
# tests/gpu/collectives_gpu_check.sh runs the same with real NCCL.
set -euo pipefail
cctune=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"; mkdir -p "$work"
CCTUNE_NCCL_MODULE="$(dirname "$cctune")/tests/libcctune-selftest.so" CCTUNE_SELFTEST_GPUS=1 "$cctune" sweep --backend nccl --gpus 1 --test-shared-gpu 4 \
  --collectives all --root all -b 1K -e 4K -f 4 -c 1 --max-time 0.02 --min-iters 3 --no-tune -o "$work/sweep" >"$work/sweep.log" 2>&1 ||
  { tail -n 20 "$work/sweep.log"; exit 1; }
python3 "$here/../../gpu/check_collectives.py" "$work/sweep/results.json" --nranks 4 \
  --collectives allreduce,allgather,reducescatter,broadcast,reduce,alltoall,sendrecv,gather,scatter --roots 0,1,2,3
# One point set per root: 4 rooted collectives x 4 roots + 5 others, 2 sizes x 2 placements each.
points=$(python3 -c 'import json,sys; print(sum(len(r["points"]) for r in json.load(open(sys.argv[1]))["runs"]))' "$work/sweep/results.json")
[[ $points -eq $(( (4 * 4 + 5) * 2 * 2 )) ]] || { echo "FAIL: $points points, want $(( (4 * 4 + 5) * 4 ))"; exit 1; }
echo "nccl_root_all_test: OK ($points points)"
