#!/usr/bin/env bash
# Runs every GPU test in one command, on a GPU host, from the repository root:
#   tests/gpu/run_gpu_tests.sh [BUILD_DIR] [OUTPUT_DIR]
# BUILD_DIR defaults to build/ (a CUDA-enabled build), OUTPUT_DIR to $OUT or gpu-test-out.
# Each check is a script beside this one; its log goes to OUTPUT_DIR/<name>.log and a
# summary table ends the output. Without a GPU every check prints SKIP and exits 0. On one GPU
# the multi-rank parts run in cctune's shared-GPU test mode (--test-shared-gpu: several workers on
# the GPU, each its own NCCL host, socket transport; docs/NCCL_BACKEND.md) instead of skipping.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-build}" && pwd) || { echo "run_gpu_tests: build directory ${1:-build} not found"; exit 2; }
out=${2:-${OUT:-gpu-test-out}}
mkdir -p "$out"; out=$(cd "$out" && pwd)
# NVLink multicast stays off in every process these tests start (workers included).
export NCCL_NVLS_ENABLE=0
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

checks=(${CCTUNE_GPU_CHECKS:-topology_gpu_check nccl_gpu_check plugin_gpu_check runtime_gpu_check verify_gpu_check csv_gpu_check dmabuf_gpu_check installed_tree_gpu_check type_lists_gpu_check})
declare -A status
for name in "${checks[@]}"; do
  script=$here/$name.sh
  [[ -x $script ]] || { status[$name]="MISSING"; continue; }
  start=$(date +%s)
  echo "=== $name"
  mkdir -p "$out/$name"
  if OUT="$out/$name" "$script" "$build" "$out/$name" >"$out/$name.log" 2>&1; then
    # A check that skipped some parts (1 GPU) but passed others is a pass, said so.
    if ! grep -q '^SKIP' "$out/$name.log"; then status[$name]="PASS"
    elif grep -q '^PASS' "$out/$name.log"; then status[$name]="PASS, part skipped"
    else status[$name]="SKIP"; fi
  else
    status[$name]="FAIL"
  fi
  tail -n 25 "$out/$name.log"
  status[$name]+=" ($(( $(date +%s) - start )) s)"
done
echo
echo "GPU test summary ($(nvidia-smi -L 2>/dev/null | wc -l) GPU(s))"
failed=0
for name in "${checks[@]}"; do
  printf '  %-22s %s\n' "$name" "${status[$name]}"
  [[ ${status[$name]} == FAIL* || ${status[$name]} == MISSING* ]] && failed=1
done
exit $failed
