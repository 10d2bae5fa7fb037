#!/usr/bin/env bash
# Quick start: install, build, and run the main job with embedded defaults on whatever
# this machine has: all local GPUs through NCCL when that backend is built and GPUs are
# present, otherwise MPI collectives over 4 local ranks.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
tools/build.sh
out=${CCTUNE_OUT:-cctune-out}
if build/cctune sweep --help 2>/dev/null | grep -q -- '--gpus' && command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  echo "quickstart: GPUs found; running the NCCL sweep on all local GPUs"
  build/cctune sweep --force -o "$out"  # --force: a re-run replaces the last quick start
else
  echo "quickstart: no GPU or no NCCL backend; running MPI collectives over 4 local ranks"
  root_flags=()
  [[ $(id -u) -eq 0 ]] && root_flags=(--allow-run-as-root)
  mpirun "${root_flags[@]}" --oversubscribe -np 4 build/cctune sweep --backend mpi -e 4M --force -o "$out"
fi
echo "quickstart: results are in $(cd "$out" && pwd)/results.json"
