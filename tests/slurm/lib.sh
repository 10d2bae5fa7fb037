# Helpers for the Slurm tests: skip without root or Slurm, start the localhost cluster,
# submit and wait for jobs with a bound, read job state.
# shellcheck shell=bash
SKIP=77
here_lib=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here_lib/../.." && pwd)

fail() { echo "${test_name:-slurm-test}: FAIL: $*"; exit 1; }
note() { echo "${test_name:-slurm-test}: $*"; }

require_slurm() {
  [[ $(id -u) -eq 0 ]] || { echo "SKIP: needs root (slurmd runs job steps as their users)"; exit $SKIP; }
  local t
  for t in munged slurmctld slurmd sbatch srun squeue scontrol; do
    command -v "$t" >/dev/null || { echo "SKIP: '$t' not installed (apt-get install slurm-wlm munge)"; exit $SKIP; }
  done
  "$repo/tools/slurm-localhost.sh" start || fail "could not start the localhost Slurm"
  eval "$("$repo/tools/slurm-localhost.sh" env)"
  export SLURM_CONF
}

job_state() { scontrol show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | head -1; }

# wait_job JOBID SECONDS: waits until the job has ended; prints its final state.
# Only a final state ends the wait: scontrol shows a running job's flags in place of its state
# (SIGNALING while a --signal=...@T warning is on its way, STAGE_OUT, RESIZING, REQUEUED, ...),
# and reading SIGNALING as "ended" once cut sbatch_resume's job short of its log.
wait_job() {
  # A deadline on the clock, not a count of polls: on a busy machine each scontrol takes
  # seconds, and counted polls once outlived the test's own timeout without saying why.
  local jid=$1 limit=$2 state end=$((SECONDS + $2))
  while ((SECONDS < end)); do
    state=$(job_state "$jid")
    case $state in
      COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY|PREEMPTED|BOOT_FAIL|DEADLINE) echo "$state"; return 0 ;;
      *) sleep 0.5 ;;
    esac
  done
  scancel "$jid" 2>/dev/null
  fail "job $jid still ${state:-unknown} after ${limit}s (cancelled)"
}

show_log() { echo "----- $1"; cat "$1" 2>/dev/null; echo "-----"; }

# has_command CCTUNE CMD: the build has that subcommand (same test as tools/cctune.sbatch).
has_command() { "$1" "$2" --help 2>/dev/null | grep -qE "^Usage: [^ ]+ $2( |\$)"; }
