# Helpers of the one-box cluster tests (tools/onebox-cluster.sh): skip without what a cluster
# needs, a cluster name no other run can have, bring-up with a trap that always takes it down,
# and the check that down left nothing behind.
# shellcheck shell=bash
SKIP=77
here_lib=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here_lib/../.." && pwd)
onebox=$repo/tools/onebox-cluster.sh

fail() { echo "${test_name:-cluster-test}: FAIL: $*"; exit 1; }
note() { echo "${test_name:-cluster-test}: $*"; }
skip() { echo "SKIP: $*"; exit $SKIP; }

require_cluster_tools() {
  [[ $(id -u) -eq 0 ]] || skip "needs root (network namespaces, veths, qdiscs)"
  local t
  for t in unshare nsenter mount; do command -v "$t" >/dev/null || skip "'$t' not installed (apt-get install util-linux mount)"; done
  if [[ -z ${ONEBOX_IPROUTE:-} ]]; then
    command -v ip >/dev/null && command -v tc >/dev/null || skip "no ip/tc (apt-get install iproute2)"
  fi
  unshare --net --uts true 2>/dev/null || skip "cannot create network and UTS namespaces here (a container without CAP_SYS_ADMIN?)"
}
require_mpirun() { command -v mpirun >/dev/null || skip "no mpirun (apt-get install openmpi-bin)"; }
require_slurm() {
  local t
  for t in munged slurmctld slurmd sbatch srun squeue scontrol sinfo; do
    command -v "$t" >/dev/null || skip "'$t' not installed (apt-get install slurm-wlm munge)"
  done
}

# A name of this run only: tests run side by side (ctest -j) and beside other engineers' tests.
cname=${test_tag:-t}$$$RANDOM
state=${ONEBOX_ROOT:-/tmp/cctune-onebox}/$cname
cluster() { "$onebox" --name "$cname" "$@"; }
# on HOST CMD...: CMD on that host (a command, so that `timeout 60 on node0 ...` works too).
on=("$onebox" --name "$cname" run)

# cluster_up ARGS...: up, with a trap that takes the cluster down however the test ends.
cluster_up() {
  trap 'cluster down >/dev/null 2>&1 || true' EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  cluster up "$@" || fail "onebox-cluster.sh up $* exited $?"
}

# What a cluster is made of, read before down: its namespaces' network inodes.
recorded_nets() { cat "$state"/ns/*.ids 2>/dev/null | cut -d: -f1 | sort -u; }

# leaves_nothing NETS: after down, no process is in any of those network namespaces, no process
# names the state directory (munged, slurmd, slurmctld...), the directory is gone, and the
# machine's own namespace has no interface of the cluster's naming.
leaves_nothing() {
  local nets=$1 n left
  [[ ! -e $state ]] || fail "state directory $state is still there after down"
  for n in $nets; do
    left=$(stat -L -c '%n %i' /proc/[0-9]*/ns/net 2>/dev/null | awk -v n="$n" '$2 == n { print $1 }' || true)
    [[ -z $left ]] || fail "processes still in the cluster's network namespace $n: $left"
  done
  # A loop in this shell, not grep: grep's own command line would name the directory too.
  local f cmd
  left=
  for f in /proc/[0-9]*/cmdline; do
    [[ $f == "/proc/$$/cmdline" ]] && continue
    { cmd=$(tr '\0' ' ' < "$f"); } 2>/dev/null || continue   # a process that ended meanwhile
    [[ $cmd == *"$state"* ]] && left+="${f%/cmdline}: $cmd; "
  done
  [[ -z $left ]] || fail "processes still name $state: $left"
  if command -v ip >/dev/null; then
    left=$(ip -o link show 2>/dev/null | awk -F': ' '{ print $2 }' | grep -E '^(n[0-9]+e[0-9]+|br[0-9]|obk)' || true)
    [[ -z $left ]] || fail "interfaces of the cluster's naming in the machine's namespace: $left"
  fi
}

# cluster_down_clean: down, and nothing left of this cluster.
cluster_down_clean() {
  local nets; nets=$(recorded_nets)
  [[ -n $nets ]] || fail "no namespaces recorded in $state/ns"
  cluster down || fail "down exited $?"
  trap - EXIT
  leaves_nothing "$nets"
  note "down left nothing ($(wc -w <<<"$nets") namespaces gone, $state removed)"
}
