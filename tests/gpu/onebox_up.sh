#!/usr/bin/env bash
# Brings up the one-box cluster of a GPU check (tools/onebox-cluster.sh): HOSTS hosts x GPH GPUs,
# links at RATE with one-way LATENCY. Where the kernel has no netem the latency cannot be had:
# the cluster comes up at the rate alone and the log says so (never silently).
#   tests/gpu/onebox_up.sh HOSTS GPH RATE LATENCY      (the cluster: $ONEBOX_NAME)
# ONEBOX_SHARE_GPUS=1: the hosts share the machine's GPUs (tools/onebox-cluster.sh --share-gpus).
# ONEBOX_NICS: NICs per host (default 1); ONEBOX_SLOW: --slow specs, space-separated
# (e.g. "node0:eth0=5gbit node1:eth0=5gbit").
# Without ip/tc on PATH, ONEBOX_IPROUTE defaults to the repository's .devcarry-iproute2.
set -uo pipefail
hosts=${1:?HOSTS} gph=${2:?GPH} rate=${3:?RATE} latency=${4:-}
repo=$(cd "$(dirname "$0")/../.." && pwd)
if ! command -v ip >/dev/null || ! command -v tc >/dev/null; then
  export ONEBOX_IPROUTE=${ONEBOX_IPROUTE:-$repo/.devcarry-iproute2}
  [[ -d $ONEBOX_IPROUTE ]] || { echo "FAIL: no ip/tc here and no carried iproute2 at $ONEBOX_IPROUTE (tools/onebox-carry.sh DIR on the dev machine, carry DIR)"; exit 1; }
fi
opts=(); [[ ${ONEBOX_SHARE_GPUS:-0} == 1 ]] && opts=(--share-gpus)
for s in ${ONEBOX_SLOW:-}; do opts+=(--slow "$s"); done
up() { "$repo/tools/onebox-cluster.sh" up --hosts "$hosts" --gpus-per-host "$gph" --nics "${ONEBOX_NICS:-1}" "${opts[@]}" --link "$1"; }
err=$(mktemp)
trap 'rm -f "$err"' EXIT
if [[ -n $latency ]]; then
  up "$rate,$latency" 2> "$err" && exit 0
  cat "$err" >&2
  grep -q 'no netem qdisc' "$err" || exit 1
  echo "NOTE: this kernel has no netem: the links are shaped to $rate without the $latency latency"
fi
up "$rate"
