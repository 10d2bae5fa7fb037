#!/usr/bin/env bash
# ctest fixture: `start` brings up tools/slurm-localhost.sh (skipped, 77, without root or
# Slurm) and remembers whether it was already up; `stop` stops it only if `start` did.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
marker=${CCTUNE_SLURM_DIR:-/tmp/cctune-slurm}.started-by-ctest
case $1 in
  start)
    [[ $(id -u) -eq 0 ]] || { echo "SKIP: needs root"; exit 77; }
    for t in munged slurmctld slurmd sbatch; do
      command -v $t >/dev/null || { echo "SKIP: '$t' not installed (apt-get install slurm-wlm munge)"; exit 77; }
    done
    if "$repo/tools/slurm-localhost.sh" status >/dev/null 2>&1; then
      echo "localhost Slurm already running; reusing it"
    else
      "$repo/tools/slurm-localhost.sh" start
      touch "$marker"
    fi ;;
  stop)
    if [[ -f $marker ]]; then "$repo/tools/slurm-localhost.sh" stop; rm -f "$marker"; else echo "not started by ctest; left running"; fi ;;
esac
