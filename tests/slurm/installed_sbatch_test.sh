#!/usr/bin/env bash
# The installed <prefix>/share/cctune/cctune.sbatch, submitted with neither CCTUNE_BIN nor a
# cctune on PATH, runs its own tree's <prefix>/bin/cctune (Slurm runs a spooled copy of the
# script, so the script finds the original through scontrol) and completes an MPI sweep.
#
# usage: installed_sbatch_test.sh BUILD_DIR WORKDIR SCHEMA
set -euo pipefail
build=$(cd "$1" && pwd) work=$2 schema=$3
test_name="installed_sbatch"
source "$(dirname "$0")/lib.sh"
require_slurm

rm -rf "$work" && mkdir -p "$work" && cd "$work"
prefix=$work/opt/cctune
cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 || { cat "$work/install.log"; fail "cmake --install"; }
unset CCTUNE_BIN
# PATH without any folder that holds a cctune (the rest, python3 included, as it was).
PATH=$(tr ':' '\n' <<<"$PATH" | while read -r d; do [[ -n $d && ! -e $d/cctune ]] && echo "$d"; done | paste -sd:)
export PATH
command -v cctune >/dev/null && fail "a cctune is on PATH ($(command -v cctune)): this test could not tell where the script found its binary"
export CCTUNE_LAUNCHER=mpirun CCTUNE_SWEEP_ARGS="--backend mpi -e 1K --max-time 0.05" CCTUNE_PROBE=0
jid=$(sbatch --parsable --ntasks-per-node=2 --time=5 "$prefix/share/cctune/cctune.sbatch")
note "submitted job $jid"
state=$(wait_job "$jid" 240)
log=$work/cctune-cctune-$jid.log
show_log "$log"
[[ $state == COMPLETED ]] || fail "job $jid ended $state"
grep -q "at $prefix/bin/cctune\$" "$log" || fail "the log does not show the installed $prefix/bin/cctune"
python3 "$here_lib/../mpi/sweep/check_results.py" "$work/cctune-cctune-$jid/results.json" "$schema" --nranks 2 --status complete ||
  fail "results.json did not check"
note "OK: job $jid ran $prefix/bin/cctune"
