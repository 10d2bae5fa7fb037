#!/usr/bin/env bash
# The NCCL backend's fault isolation with real NCCL on this host's GPUs:
#   tests/gpu/runtime_gpu_check.sh BUILD_DIR [OUTPUT_DIR]
# The scenarios of tests/mpi/runtime/lifecycle.py (which CI runs with the selftest stand-in)
# with real workers: a worker made to hang / abort / exit at point k under mpirun -np 2, a group
# whose environment makes NCCL fail at init (NCCL_SOCKET_IFNAME=nonexistent_if0), a missing
# module, too many ranks, --gpus too large, a size that does not fit; no worker left behind.
# With one GPU the multi-rank scenarios share it (lifecycle.py --shared-gpu: cctune's
# --test-shared-gpu, each worker its own NCCL host over sockets). The shared_gpu scenario (4
# workers on GPU 0, distinct NCCL_HOSTIDs, NVLS off in every worker and in NCCL's own INFO
# lines, results marked, tune refuses) runs on any GPU count, pinned to GPU 0.
set -uo pipefail
export NCCL_NVLS_ENABLE=0  # never NVLS/multicast in tests
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
here=$(cd "$(dirname "$0")" && pwd)
BUILD=$(cd "${1:?usage: runtime_gpu_check.sh BUILD_DIR [OUTPUT_DIR]}" && pwd)
OUTDIR=${2:-${OUT:-$(mktemp -d /tmp/cctune-runtime-gpu.XXXXXX)}}/runtime_gpu_check
mkdir -p "$OUTDIR"
command -v nvidia-smi >/dev/null 2>&1 || { echo "SKIP: nvidia-smi not found"; exit 0; }
NGPU=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
[[ "$NGPU" -ge 1 ]] || { echo "SKIP: no GPU found"; exit 0; }
[[ -f "$BUILD/libcctune-nccl.so" ]] || { echo "FAIL: $BUILD/libcctune-nccl.so not found"; exit 1; }
shared=()
if [[ "$NGPU" -lt 2 ]]; then
  shared=(--shared-gpu)
  echo "1 GPU: multi-rank scenarios share it (--test-shared-gpu; socket transport, functional only)"
fi
fails=0
for s in shared_gpu ok hang abort exit singleton_hang init_failure missing_module bad_inputs emulate_nodes auto interrupt; do
  echo "=== $s"
  start=$(date +%s)
  if python3 "$here/../mpi/runtime/lifecycle.py" "$s" --gpu "${shared[@]}" --cctune "$BUILD/cctune" \
       --mpiexec "$(command -v mpirun)" --workdir "$OUTDIR"; then echo "PASS: $s ($(( $(date +%s) - start )) s)"
  else echo "FAIL: $s"; fails=$((fails + 1)); fi
done
exit $(( fails > 0 ))
