#!/usr/bin/env bash
# One multi-host torchrun job on a one-box cluster (tools/onebox-cluster.sh): a torchrun launcher
# per host, each started in its host's namespaces as a cluster's job script starts one per node,
# meeting through the c10d rendezvous on node0. One command for the whole job, so that
# `cctune verify --job -- onebox_torchrun.sh ...` and `tune --job` run it as they run any job:
# the caller's environment (the profile, the profiler's settings) reaches every host's workers.
#   onebox_torchrun.sh SCRIPT [ARGS...]
# Environment:
#   ONEBOX_NAME       the cluster (default: onebox)
#   ONEBOX_NPROC      processes per host (default: the host's GPUs, from the cluster; else 1)
#   ONEBOX_RDZV_PORT  the rendezvous port on node0 (default 29500)
#   ONEBOX_TORCHRUN   the launcher (default: python3 -m torch.distributed.run; tests put a
#                     stand-in here, tests/cluster/fake_torchrun.py)
# Runs on the machine or inside a host. Exits 0 when every host's launcher did; else with the
# first failure's status, having stopped the other hosts' launchers (one job, as on a cluster).
set -uo pipefail
(($#)) || { echo "usage: $0 SCRIPT [ARGS...]" >&2; exit 2; }
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
onebox=("$repo/tools/onebox-cluster.sh" --name "${ONEBOX_NAME:-onebox}")
cluster_env=$("${onebox[@]}" env) || exit 1
eval "$cluster_env"
read -r -a hosts <<<"$ONEBOX_HOSTS"
nproc=${ONEBOX_NPROC:-}
if [[ -z $nproc ]]; then
  cvd=$(sed -n 's/^CUDA_VISIBLE_DEVICES=//p' "$ONEBOX_STATE/hosts/node0.env")
  nproc=1
  [[ -n $cvd ]] && nproc=$(tr ',' '\n' <<<"$cvd" | grep -c .)
fi
read -r -a torchrun <<<"${ONEBOX_TORCHRUN:-python3 -m torch.distributed.run}"
rdzv=(--nnodes "${#hosts[@]}" --nproc-per-node "$nproc" --rdzv-backend c10d --rdzv-endpoint "node0:${ONEBOX_RDZV_PORT:-29500}"
      --rdzv-id "onebox-$$-$RANDOM" --max-restarts 0)
pids=()
for h in "${hosts[@]}"; do
  "${onebox[@]}" run "$h" -- "${torchrun[@]}" "${rdzv[@]}" "$@" &
  pids+=($!)
done
stop_all() { kill -TERM "${pids[@]}" 2>/dev/null; }
trap 'stop_all; exit 143' TERM
trap 'stop_all; exit 130' INT
rc=0 left=("${pids[@]}")
while ((${#left[@]})); do
  wait -n -p done_pid "${left[@]}"
  r=$?
  still=()
  for p in "${left[@]}"; do [[ $p == "${done_pid:-}" ]] || still+=("$p"); done
  left=("${still[@]+"${still[@]}"}")
  if ((r != 0 && rc == 0)); then
    rc=$r
    echo "onebox_torchrun: a host's launcher exited $r; stopping the others" >&2
    stop_all
  fi
done
exit "$rc"
