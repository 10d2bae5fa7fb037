#!/usr/bin/env bash
# cctune's multi-node path under mpirun across 3 one-box hosts (tools/onebox-cluster.sh), each
# with 2 NICs at 400 Mbit/s, node2's eth0 shaped to a tenth of that:
#  - `cctune topo --json`: 3 nodes with their own host names, eth0 and eth1 each, and the
#    shaped rates (tc tbf) on them, node2's eth0 at 0.04 Gb/s;
#  - `cctune probe --probe tcp` over eth0: the two pairs with node2 measure a tenth of the
#    other (relative: a loaded CI host slows all pairs alike), their port rate is node2's;
#  - the same over eth1: every pair alike (the NIC chosen is the NIC measured).
# Usage: mpirun_probe_test.sh CCTUNE WORKDIR. Exit 77 (skip) without root, namespaces or mpirun.
set -uo pipefail
cctune=$1 work=$2
test_name=cluster.mpirun_probe test_tag=prb
source "$(dirname "$0")/lib.sh"
require_cluster_tools
require_mpirun
rm -rf "$work" && mkdir -p "$work"
t0=$SECONDS
cluster_up --hosts 3 --nics 2 --link 400mbit --slow node2:eth0=40mbit
mpi=(mpirun --allow-run-as-root --host node0,node1,node2)

timeout 120 "${on[@]}" node0 -- "${mpi[@]}" "$cctune" topo --json -o "$work/topo.json" || fail "cctune topo under mpirun exited $?"
python3 - "$work/topo.json" <<'PY' || fail "topology check"
import json, sys
t = json.load(open(sys.argv[1]))
nodes = {n["hostname"]: n for n in t["nodes"]}
assert sorted(nodes) == ["node0", "node1", "node2"], sorted(nodes)
for h, n in nodes.items():
    ifs = {i["name"]: i for i in n["net_interfaces"]}
    assert sorted(ifs) == ["eth0", "eth1"], (h, sorted(ifs))   # the host's own, not the machine's
    for name, i in ifs.items():
        want = 0.04 if (h, name) == ("node2", "eth0") else 0.4
        assert abs(i.get("shaped_Gbps", 0) - want) < 1e-9, (h, name, i)
print("topology: 3 hosts, eth0+eth1 each, shaped 0.4 Gb/s except node2 eth0 at 0.04")
PY

probe() {  # probe IF: a TCP probe of every pair over IF
  timeout 120 "${on[@]}" node0 -- "${mpi[@]}" "$cctune" probe --probe tcp --socket-ifname "$1" -b 256K -e 256K -n 40 -w 4 \
    --lat-iters 100 -o "$work/net-$1.json" > "$work/probe-$1.txt" 2>&1 || { cat "$work/probe-$1.txt"; fail "probe over $1 exited $?"; }
}
probe eth0
probe eth1
python3 - "$work/net-eth0.json" "$work/net-eth1.json" <<'PY' || fail "probe check"
import json, sys
def pairs(f):
    out = {}
    for p in json.load(open(f))["pairs"]:
        assert p["error"] is None, p
        out[tuple(sorted((p["initiator_host"], p["responder_host"])))] = p
    assert sorted(out) == [("node0", "node1"), ("node0", "node2"), ("node1", "node2")], sorted(out)
    return out
e0, e1 = pairs(sys.argv[1]), pairs(sys.argv[2])
gbps = lambda p: p["bandwidth"][0]["avg_Gbps"]
healthy = gbps(e0[("node0", "node1")])
for k in [("node0", "node2"), ("node1", "node2")]:
    r = gbps(e0[k]) / healthy
    print(f"eth0 {k[0]}<->{k[1]}: {gbps(e0[k]):.4f} Gb/s = {r:.3f} of node0<->node1 ({healthy:.4f} Gb/s); port rate {e0[k]['port_rate_Gbps']}")
    assert 0.05 <= r <= 0.2, f"{k}: {r:.3f} of the healthy pair, expected about a tenth"
    assert abs(e0[k]["port_rate_Gbps"] - 0.04) < 1e-9, e0[k]["port_rate_Gbps"]
    assert e0[k]["initiator_endpoint"].startswith("eth0 10.100.0."), e0[k]["initiator_endpoint"]
assert abs(e0[("node0", "node1")]["port_rate_Gbps"] - 0.4) < 1e-9
# No absolute floor below the shaper on a busy host, but a healthy pair cannot beat its link.
assert healthy <= 0.4 * 1.1, f"node0<->node1 {healthy} Gb/s above its 0.4 Gb/s link"
rates = [gbps(p) for p in e1.values()]
print("eth1 pairs:", ", ".join(f"{r:.4f}" for r in rates), "Gb/s")
assert min(rates) >= 0.6 * max(rates), f"eth1 pairs differ: {rates}"
assert all(p["initiator_endpoint"].startswith("eth1 10.101.0.") for p in e1.values())
PY
cluster_down_clean
note "OK in $((SECONDS - t0)) s"
