#!/usr/bin/env bash
# sweep_and_check.sh CCTUNE NP OUTDIR SCHEMA [sweep args...]: runs the MPI sweep under
# mpirun and checks results.json (schema, busbw formula, zero wrong elements).
set -euo pipefail
cctune=$1 np=$2 out=$3 schema=$4
shift 4
rm -rf "$out"
"${MPIRUN:-mpirun}" --allow-run-as-root --oversubscribe -np "$np" "$cctune" sweep --backend mpi --max-time 0.3 -o "$out" "$@"
python3 "$(dirname "$0")/check_results.py" "$out/results.json" "$schema" --nranks "$np" \
  --collectives allreduce,allgather,reducescatter --status complete --check-wrong --min-points 6
