#!/usr/bin/env bash
# tools/cctune.sbatch under `sbatch -N 2` on a 2-host one-box Slurm (slurmctld "${on[@]}" node0 --, one
# slurmd per host), submitted from node0 as on a cluster's head node: the MPI backend sweep and
# the probe run across both hosts (srun --mpi=pmix when Slurm has it), and results.json's
# topology lists node0 and node1, each with its own eth0 at the shaped 1 Gb/s. Each host's
# tasks see that host's GPUs (CUDA_VISIBLE_DEVICES through the cluster's TaskProlog; the
# machine's GPU count is given, so this runs without GPUs).
# Usage: sbatch_test.sh CCTUNE WORKDIR SCHEMA. Exit 77 (skip) without root, namespaces or Slurm.
set -uo pipefail
cctune=$1 work=$2 schema=$3
test_name=cluster.sbatch test_tag=sb
source "$(dirname "$0")/lib.sh"
require_cluster_tools
require_slurm
require_mpirun
rm -rf "$work" && mkdir -p "$work"
t0=$SECONDS
ONEBOX_TEST_MACHINE_GPUS=4 cluster_up --hosts 2 --gpus-per-host 2 --link 1gbit --slurm

gpus=$(cd "$work" && timeout 60 "${on[@]}" node0 -- srun -N 2 --ntasks-per-node=1 sh -c 'echo "$(hostname)=$CUDA_VISIBLE_DEVICES"' | sort | paste -sd' ')
[[ $gpus == "node0=0,1 node1=2,3" ]] || fail "tasks' CUDA_VISIBLE_DEVICES: '$gpus', expected node0=0,1 node1=2,3"
note "each host's tasks see its GPUs: $gpus"

export CCTUNE_BIN=$cctune CCTUNE_SWEEP_ARGS="--backend mpi -e 64K --max-time 0.1" CCTUNE_PROBE_ARGS="-b 256K -e 256K -n 40 --lat-iters 100"
jid=$(cd "$work" && timeout 60 "${on[@]}" node0 -- sbatch --parsable -N 2 --ntasks-per-node=1 --time=8 "$repo/tools/cctune.sbatch") \
  || fail "sbatch refused the job"
note "submitted job $jid"
state_of_job() { "${on[@]}" node0 -- scontrol show job "$jid" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | head -1; }
end=$((SECONDS + 400))
while ((SECONDS < end)); do
  st=$(state_of_job)
  case $st in COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY|BOOT_FAIL|DEADLINE) break ;; esac
  sleep 1
done
log=$work/cctune-cctune-$jid.log dir=$work/cctune-cctune-$jid
echo "----- $log"; cat "$log" 2>/dev/null; echo "-----"
[[ $st == COMPLETED ]] || fail "job $jid ended '${st:-unknown}'"
python3 "$repo/tests/mpi/sweep/check_results.py" "$dir/results.json" "$schema" --nranks 2 --status complete \
  --collectives allreduce,allgather,reducescatter --min-points 30 || fail "results.json did not check"
python3 - "$dir/results.json" "$dir/net.json" <<'PY' || fail "results across hosts"
import json, sys
r = json.load(open(sys.argv[1]))
nodes = {n["hostname"]: n for n in r["topology"]["nodes"]}
assert sorted(nodes) == ["node0", "node1"], sorted(nodes)
for h, n in nodes.items():
    ifs = {i["name"]: i for i in n["net_interfaces"]}
    assert list(ifs) == ["eth0"], (h, list(ifs))
    assert abs(ifs["eth0"].get("shaped_Gbps", 0) - 1.0) < 1e-9, (h, ifs["eth0"])
assert sorted(set(r["meta"]["hostnames"])) == ["node0", "node1"], r["meta"]["hostnames"]
assert all(run["nnodes"] == 2 and run["nranks"] == 2 for run in r["runs"]), [(x["nnodes"], x["nranks"]) for x in r["runs"]]
net = json.load(open(sys.argv[2]))
(pair,) = net["pairs"]
assert {pair["initiator_host"], pair["responder_host"]} == {"node0", "node1"} and pair["error"] is None, pair
print(f"sweep: {len(r['runs'])} run(s) over node0+node1, {sum(len(x['points']) for x in r['runs'])} points; "
      f"probe node0<->node1 {pair['bandwidth'][0]['avg_Gbps']:.3f} Gb/s over a 1 Gb/s link")
PY
launcher=$(sed -n 's/^cctune.sbatch: launcher: //p' "$log")
note "launcher: $launcher"
cluster_down_clean
note "OK in $((SECONDS - t0)) s"
