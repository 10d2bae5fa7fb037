#!/usr/bin/env bash
# Ground truth for the TCP probe: two network namespaces joined by a veth pair shaped
# to 500 Mbit/s with tbf, one MPI rank in each (real mpirun; netns_exec.py bridges the
# PMIx loopback). The probe must measure within 10% of 500 Mbit/s.
# Usage: netns_tbf_test.sh CCTUNE MPIEXEC. Exit 77 (skip) without root or `ip netns`.
set -euo pipefail
cctune=$1 mpiexec=$2
here=$(cd "$(dirname "$0")" && pwd)
rate_mbit=500
if [[ $(id -u) -ne 0 ]]; then echo "SKIP: needs root to create network namespaces"; exit 77; fi
if ! command -v ip >/dev/null || ! ip netns list >/dev/null 2>&1; then echo "SKIP: 'ip netns' unavailable"; exit 77; fi

id=$$
A=cctnA$id B=cctnB$id
work=$(mktemp -d)
cleanup() {
  ip netns del "$A" 2>/dev/null || true
  ip netns del "$B" 2>/dev/null || true
  ip link del "ccc${id}a" 2>/dev/null || true
  ip link del "ccc${id}b" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

ip netns add "$A"
ip netns add "$B"
# The measured link: ccvA <-> ccvB, 10.77.0.0/24, tbf on both egresses.
ip link add "ccvA$id" type veth peer name "ccvB$id"
ip link set "ccvA$id" netns "$A"
ip link set "ccvB$id" netns "$B"
ip -n "$A" addr add 10.77.0.1/24 dev "ccvA$id"
ip -n "$B" addr add 10.77.0.2/24 dev "ccvB$id"
for ns in "$A" "$B"; do ip -n "$ns" link set lo up; done
ip -n "$A" link set "ccvA$id" up
ip -n "$B" link set "ccvB$id" up
ip netns exec "$A" tc qdisc add dev "ccvA$id" root tbf rate ${rate_mbit}mbit burst 256kb latency 50ms
ip netns exec "$B" tc qdisc add dev "ccvB$id" root tbf rate ${rate_mbit}mbit burst 256kb latency 50ms

# Both ranks match --socket-ifname ccv (prefix), each its own end of the veth.
set +e
timeout 50 "$mpiexec" --allow-run-as-root --oversubscribe \
  --mca btl tcp,self --mca btl_tcp_if_include 10.77.0.0/24 \
  -np 1 "$here/netns_exec.py" "$A" "$cctune" probe --probe tcp --socket-ifname ccv -b 1M -e 1M -n 250 -w 20 \
      --lat-iters 200 -o "$work/net.json" : \
  -np 1 "$here/netns_exec.py" "$B" "$cctune" probe --probe tcp --socket-ifname ccv -b 1M -e 1M -n 250 -w 20 \
      --lat-iters 200 -o "$work/net.json"
rc=$?
set -e
[[ $rc -eq 0 ]] || { echo "FAIL: cctune probe exited $rc"; exit 1; }

python3 - "$work/net.json" "$rate_mbit" <<'PY'
import json, sys
net = json.load(open(sys.argv[1]))
rate = float(sys.argv[2]) / 1000  # Gb/s
p = net["pairs"][0]
assert p["error"] is None, p
assert p["initiator_endpoint"].startswith("ccvA") and p["responder_endpoint"].startswith("ccvB"), p
bw = p["bandwidth"][0]["avg_Gbps"]
lat = p["latency"]["typical_us"]
print(f"measured {bw:.4f} Gb/s over a {rate:.3f} Gb/s tbf link ({bw / rate:.3f} of the rate); latency typical {lat:.1f} us")
assert abs(bw / rate - 1) <= 0.10, f"{bw} Gb/s is not within 10% of {rate} Gb/s"
assert lat > 0
PY
