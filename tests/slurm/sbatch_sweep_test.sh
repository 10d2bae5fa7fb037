#!/usr/bin/env bash
# `sbatch tools/cctune.sbatch` on the localhost Slurm: MPI backend, 2 tasks on the one
# node. The job directory must hold a valid results.json and, for each of tune and report
# this build has, their files; for each it lacks, the log says it was skipped.
#
# usage: sbatch_sweep_test.sh CCTUNE WORKDIR SCHEMA LAUNCHER NTASKS
set -euo pipefail
cctune=$1 work=$2 schema=$3 launcher=$4 ntasks=$5
test_name="sbatch_sweep[$launcher]"
source "$(dirname "$0")/lib.sh"
require_slurm

rm -rf "$work" && mkdir -p "$work" && cd "$work"
export CCTUNE_BIN=$cctune CCTUNE_LAUNCHER=$launcher
export CCTUNE_SWEEP_ARGS="--backend mpi -e 64K --max-time 0.1"
jid=$(sbatch --parsable --ntasks-per-node="$ntasks" --time=8 "$repo/tools/cctune.sbatch")
note "submitted job $jid ($ntasks tasks, launcher $launcher)"
# About 25 s on a quiet 2-core machine; a loaded one (CI beside other work) took over 240 s once.
state=$(wait_job "$jid" 420)
log=$work/cctune-cctune-$jid.log
dir=$work/cctune-cctune-$jid
show_log "$log"
[[ $state == COMPLETED ]] || fail "job $jid ended $state"

python3 "$here_lib/../mpi/sweep/check_results.py" "$dir/results.json" "$schema" --nranks "$ntasks" --status complete \
  --collectives allreduce,allgather,reducescatter --min-points 30 || fail "results.json did not check"
expect_launch="srun --mpi=pmix"; [[ $launcher == mpirun ]] && expect_launch="mpirun"
grep -q "launcher: $expect_launch" "$log" || fail "the log does not show launcher '$expect_launch'"

# probe, tune and report: their files when the build has the command, else the skip message.
if has_command "$cctune" probe; then
  [[ -s $dir/net.json ]] || fail "net.json missing in $dir"
  note "probe ran: net.json present"
else
  grep -q "skipped: probe not available in this build" "$log" || fail "no skip message for probe"
fi
if ! grep -q '"backend": *"nccl"' "$dir/results.json"; then
  # cctune tune refuses MPI-backend results (a profile steers NCCL): the script says so.
  grep -q "tune: skipped: profiles steer NCCL, and this sweep measured no NCCL run" "$log" || fail "no tune skip message for MPI results"
  [[ ! -e $dir/profile.json ]] || fail "a profile was written from MPI results"
  note "tune skipped for MPI-backend results, as the log says"
elif has_command "$cctune" tune; then
  for f in profile.json nccl.env nccl_tuner.conf; do [[ -s $dir/$f ]] || fail "$f missing in $dir"; done
  [[ $(tail -1 "$log") == "set -a; . $dir/nccl.env; set +a" ]] || fail "last log line is not the profile line"
  note "tune ran: profile.json, nccl.env, nccl_tuner.conf present"
else
  grep -q "skipped: tune not available in this build" "$log" || fail "no skip message for tune"
  note "tune not in this build: skip message present"
fi
if has_command "$cctune" report; then
  [[ -s $dir/report.html ]] || fail "report.html missing in $dir"
  grep -q "<html" "$dir/report.html" || fail "report.html is not HTML"
  note "report ran: report.html present"
else
  grep -q "skipped: report not available in this build" "$log" || fail "no skip message for report"
fi
note "OK: job $jid COMPLETED, $(python3 -c "import json,sys; print(sum(len(r['points']) for r in json.load(open(sys.argv[1]))['runs']))" "$dir/results.json") points in $dir"
