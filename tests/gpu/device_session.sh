#!/usr/bin/env bash
# Everything we run on a lent multi-GPU machine in one call, from the repository root:
#   tests/gpu/device_session.sh BUNDLE_DIR RESULT_DIR
# BUNDLE_DIR: a build or tools/gpu-bundle.sh output. Runs the GPU checks, the side-by-side
# reference benchmark, and full-range sweeps (singleton and one rank per GPU), then packs
# RESULT_DIR into RESULT_DIR.tgz. NCCL_NVLS_ENABLE=0 throughout.
set -uo pipefail
b=$(cd "${1:?BUNDLE_DIR}" && pwd)
g=${2:?RESULT_DIR}
mkdir -p "$g"; g=$(cd "$g" && pwd)
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
{ nvidia-smi -L; nvidia-smi topo -m; ldd "$b/cctune" "$b/libcctune-nccl.so" | grep -E 'not found|nccl|mpi|hwloc'
  # Whether this kernel could host soft-RoCE (rdma_rxe) for the ibverbs probe.
  uname -r; ls /sys/class/infiniband; zcat /proc/config.gz | grep -E '^CONFIG_(INFINIBAND|RDMA_RXE|RDMA_SIW)='; } > "$g/env.txt" 2>&1
step() {  # step NAME SECONDS COMMAND...: bounded, logged, timed
  local name=$1 limit=$2; shift 2
  local t0=$(date +%s)
  timeout "$limit" "$@" > "$g/$name.txt" 2>&1
  echo "step $name: rc=$? $(( $(date +%s) - t0 )) s" | tee -a "$g/steps.txt"
}
step checks 360 tests/gpu/run_gpu_tests.sh "$b" "$g/checks"
step side_by_side 240 bench/nccl_side_by_side.sh "$b" "$g/bench"
step full_singleton 40 "$b/cctune" sweep --backend nccl -b 8 -e 8G -f 2 --placement out --max-time 0.25 -o "$g/full"
step full_mpi 40 mpirun --oversubscribe -np "$ngpu" -x NCCL_NVLS_ENABLE "$b/cctune" sweep --backend nccl -b 8 -e 8G -f 4 \
  --max-time 0.25 -c 1 -o "$g/mpi"
step space_plan 20 "$b/cctune" sweep --space default --dry-run
step space_quick 90 "$b/cctune" sweep --space quick -e 1M -o "$g/space"
step graph 20 "$b/cctune" sweep --backend nccl -b 8 -e 64K -f 8 --graph --placement out -o "$g/graph"
tar czf "$g.tgz" -C "$(dirname "$g")" "$(basename "$g")"
cat "$g/steps.txt"
