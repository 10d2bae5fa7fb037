#!/usr/bin/env bash
# Library versions that differ across ranks stop the sweep before anything is measured,
# naming the versions, ranks and hosts; a launch where srun does not wire MPI stops too.
# The second rank's version is faked by CCTUNE_TEST_FAKE_VERSION, which cctune-test (cctune with
# test seams, built beside it) reads:
# mpirun always; srun and `srun --mpi=none` when the localhost Slurm can run (else skipped
# parts are said so).
#
# usage: version_mismatch_test.sh CCTUNE WORKDIR
set -euo pipefail
cctune=$1 work=$2
cctune_test="$(dirname "$cctune")/cctune-test"  # cctune with test seams: reads CCTUNE_TEST_FAKE_VERSION
test_name=version_mismatch
here=$(dirname "$0")
source "$here/lib.sh"
rm -rf "$work" && mkdir -p "$work" && cd "$work"
args=(sweep --backend mpi -e 1K --max-time 0.05)

expect_stop() {  # $1: label, $2: log, $3: out dir, $4: expected rc, rest: expected texts
  local label=$1 logf=$2 out=$3 want_rc=$4 rc; shift 4
  rc=$(<"$logf.rc")
  [[ $rc -eq $want_rc ]] || { cat "$logf"; fail "$label: exit code $rc, expected $want_rc"; }
  local text
  for text in "$@"; do grep -qF -- "$text" "$logf" || { cat "$logf"; fail "$label: output lacks: $text"; }; done
  [[ ! -e $out/results.json ]] || fail "$label: results.json was written, something was measured"
  note "$label: stopped before measuring (exit $rc): $(grep -m1 'error' "$logf")"
}
run() {  # $1: log file, rest: command
  local logf=$1; shift
  set +e; "$@" > "$logf" 2>&1; echo $? > "$logf.rc"; set -e
}

host=$(hostname)
mpirun=("${MPIRUN:-mpirun}" --allow-run-as-root --oversubscribe)
run mpirun-mpi.log "${mpirun[@]}" -np 3 -x CCTUNE_TEST_FAKE_VERSION="1:mpi=Open MPI v9.9.9" "$cctune_test" "${args[@]}" -o out1
expect_stop "mpirun, rank 1 with another MPI" mpirun-mpi.log out1 3 \
  "library versions differ across ranks: mpi is 'Open MPI v" "on ranks 0,2 ($host) and 'Open MPI v9.9.9' on rank 1 ($host); nothing was measured" \
  "Fix: install the same cctune build and libraries on every node"
[[ $(grep -c "cctune: error" mpirun-mpi.log) -eq 1 ]] || fail "the error should be printed once (by rank 0)"

run mpirun-nccl.log "${mpirun[@]}" -np 2 -x CCTUNE_TEST_FAKE_VERSION="1:nccl=2.99.0" "$cctune_test" "${args[@]}" -o out2
expect_stop "mpirun, rank 1 reports NCCL 2.99.0" mpirun-nccl.log out2 3 \
  "nccl is missing on rank 0 ($host) and '2.99.0' on rank 1 ($host)"

# A node mpirun cannot start its daemon on (here 127.0.0.2, where no sshd listens): mpirun
# itself says so before any rank runs.
printf '%s slots=2\n127.0.0.2 slots=2\n' "$(hostname)" > hosts
run mpirun-node.log "${mpirun[@]}" --hostfile hosts --map-by ppr:1:node "$cctune" "${args[@]}" -o out0
rc=$(<mpirun-node.log.rc)
[[ $rc -ne 0 ]] || fail "mpirun with an unreachable node: exit 0"
grep -qF "ORTE was unable to reliably start one or more daemons" mpirun-node.log || { cat mpirun-node.log; fail "no ORTE message"; }
[[ ! -e out0/results.json ]] || fail "mpirun with an unreachable node wrote results"
note "mpirun with an unreachable node: refused by mpirun before measuring (exit $rc)"

if [[ $(id -u) -ne 0 ]] || ! command -v slurmd >/dev/null; then
  note "srun parts skipped: needs root and slurm-wlm"; note "OK (mpirun only)"; exit 0
fi
require_slurm
run srun-mpi.log env CCTUNE_TEST_FAKE_VERSION="1:cctune=0.0.1 (deadbeef)" srun --mpi=pmix -n 2 "$cctune_test" "${args[@]}" -o out3
expect_stop "srun --mpi=pmix, rank 1 with another cctune" srun-mpi.log out3 3 "cctune is '" "and '0.0.1 (deadbeef)' on rank 1 ($host)"

# srun without an MPI plugin starts unconnected singletons; Open MPI refuses them.
run srun-nompi.log srun --mpi=none -n 2 "$cctune" "${args[@]}" -o out4
rc=$(<srun-nompi.log.rc)
[[ $rc -ne 0 ]] || fail "srun --mpi=none: exit 0"
grep -qF "OMPI was not built with SLURM's PMI support" srun-nompi.log || { cat srun-nompi.log; fail "srun --mpi=none: no Open MPI message"; }
[[ ! -e out4/results.json ]] || fail "srun --mpi=none wrote results"
note "srun --mpi=none: refused by Open MPI before measuring (exit $rc)"
note "OK"
