#!/usr/bin/env bash
# How work reaches the hosts of a one-box cluster, without GPUs (the machine's 4 GPUs are given,
# 2 per host):
#  - mpirun through the cluster's rsh agent: ranks land on node0 and node1 with their host's
#    CUDA_VISIBLE_DEVICES and Open MPI's TCP settings; a variable of the caller reaches node1's
#    ranks only through -x, as over ssh;
#  - the multi-host torchrun launcher of the GPU job chain (tests/gpu/workload/onebox_torchrun.sh)
#    with a stand-in for torchrun: c10d-style rendezvous on node0, 2 workers per host with the
#    host's GPUs and the caller's environment, the workers meeting across the hosts; a host
#    that fails stops the job (non-zero) and leaves no worker behind.
# Usage: launchers_test.sh WORKDIR. Exit 77 (skip) without root, namespaces or mpirun.
set -uo pipefail
work=$1
test_name=cluster.launchers test_tag=ln
source "$(dirname "$0")/lib.sh"
require_cluster_tools
require_mpirun
rm -rf "$work" && mkdir -p "$work"
t0=$SECONDS
ONEBOX_TEST_MACHINE_GPUS=4 cluster_up --hosts 2 --gpus-per-host 2 --link 1gbit

export ONEBOX_TEST_SECRET=from-the-caller
show='echo "$(hostname) rank=$OMPI_COMM_WORLD_RANK cvd=$CUDA_VISIBLE_DEVICES btl=$OMPI_MCA_btl_tcp_if_include secret=${ONEBOX_TEST_SECRET:-none}"'
timeout 60 "${on[@]}" node0 -- mpirun --allow-run-as-root --host node0:2,node1:2 sh -c "$show" | sort > "$work/plain.txt" \
  || fail "mpirun across the hosts exited $?"
timeout 60 "${on[@]}" node0 -- mpirun --allow-run-as-root --host node0:2,node1:2 -x ONEBOX_TEST_SECRET sh -c "$show" | sort > "$work/x.txt" \
  || fail "mpirun -x across the hosts exited $?"
cat "$work/plain.txt"
expect() { grep -qxF "$2" "$1" || fail "$(basename "$1"): no line '$2'"; }
expect "$work/plain.txt" "node0 rank=0 cvd=0,1 btl=10.100.0.0/24 secret=from-the-caller"
expect "$work/plain.txt" "node0 rank=1 cvd=0,1 btl=10.100.0.0/24 secret=from-the-caller"
expect "$work/plain.txt" "node1 rank=2 cvd=2,3 btl=10.100.0.0/24 secret=none"
expect "$work/plain.txt" "node1 rank=3 cvd=2,3 btl=10.100.0.0/24 secret=none"
expect "$work/x.txt" "node1 rank=3 cvd=2,3 btl=10.100.0.0/24 secret=from-the-caller"
note "mpirun: ranks 0-1 on node0 (GPUs 0,1), 2-3 on node1 (GPUs 2,3); the caller's variable crosses only with -x"

launch=("$repo/tests/gpu/workload/onebox_torchrun.sh" "$here_lib/dummy_job.py")
export ONEBOX_NAME=$cname ONEBOX_TORCHRUN="python3 $here_lib/fake_torchrun.py" CCTUNE_PROFILE=/shared/profile.json
timeout 120 "${launch[@]}" "$work/job.txt" || fail "the multi-host launcher exited $?"
sort "$work/job.txt" | tee "$work/job.sorted"
for line in "node0 rank=0 local=0 world=4 cvd=0,1" "node0 rank=1 local=1 world=4 cvd=0,1" \
            "node1 rank=2 local=0 world=4 cvd=2,3" "node1 rank=3 local=1 world=4 cvd=2,3"; do
  expect "$work/job.sorted" "$line profile=/shared/profile.json"
done
expect "$work/job.sorted" "rank 0 heard [1, 2, 3]"
note "torchrun launcher: 2 hosts x 2 workers, the caller's CCTUNE_PROFILE in all, rank 0 reached from both hosts"

t1=$SECONDS
timeout 120 "${launch[@]}" "$work/fail.txt" --fail-on node1
rc=$?
[[ $rc -ne 0 && $rc -ne 124 ]] || fail "the launcher exited $rc when node1's workers failed (expected their failure, not 0 or a timeout)"
sleep 0.5
left=$(ps -eo pid,args | grep "[d]ummy_job.py $work/fail.txt" || true)
[[ -z $left ]] || fail "workers left behind after a host failed: $left"
note "a failing host ends the job (exit $rc in $((SECONDS - t1)) s) and leaves no worker"
cluster_down_clean

# A one-GPU machine: --share-gpus gives every host that GPU (a test mode for NCCL across hosts).
ONEBOX_TEST_MACHINE_GPUS=1 cluster_up --hosts 2 --share-gpus --link 1gbit
for h in node0 node1; do
  cvd=$(timeout 30 "${on[@]}" "$h" -- sh -c 'echo "$CUDA_VISIBLE_DEVICES"') || fail "run $h exited $?"
  [[ $cvd == 0 ]] || fail "--share-gpus: $h sees GPUs '$cvd', expected 0"
done
note "--share-gpus: both hosts see GPU 0"
cluster_down_clean
note "OK in $((SECONDS - t0)) s"
