#!/usr/bin/env bash
# cctune diagnose against a known fault: 4 emulated nodes, each a network namespace with a host
# name of its own (netns_exec.py --hostname), joined through a bridge in a fifth namespace.
# Every node's link is shaped with tbf (both directions) to RATE, so that healthy figures are
# the link's and not the loaded CPU's; with MODE=shaped one node's link gets a quarter of it.
# MPI backend (btl tcp over the bridge) and the TCP probe, one rank per node, real mpirun.
#   shaped: diagnose names exactly that node's NIC/link and nothing else, and exits 5;
#   clean:  it names nothing and exits 0.
# Usage: netns_diagnose_test.sh CCTUNE MPIEXEC shaped|clean. Exit 77 (skip) without root or `ip netns`.
set -euo pipefail
cctune=$1 mpiexec=$2 mode=$3
here=$(cd "$(dirname "$0")" && pwd)
netns_exec=$here/../net/netns_exec.py
rate_mbit=400 bad_node=2
if [[ $(id -u) -ne 0 ]]; then echo "SKIP: needs root to create network namespaces"; exit 77; fi
if ! command -v ip >/dev/null || ! ip netns list >/dev/null 2>&1; then echo "SKIP: 'ip netns' unavailable"; exit 77; fi
if ! command -v unshare >/dev/null; then echo "SKIP: no unshare"; exit 77; fi

id=$$
sw=ccdS$id
work=$(mktemp -d)
cleanup() {
  for i in 0 1 2 3; do ip netns del "ccdN$i$id" 2>/dev/null || true; done
  ip netns del "$sw" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

ip netns add "$sw"
ip -n "$sw" link add br0 type bridge
ip -n "$sw" link set br0 up
ip -n "$sw" link set lo up
apps=()
for i in 0 1 2 3; do
  ns=ccdN$i$id
  ip netns add "$ns"
  ip link add "ccd$i$id" type veth peer name "ccs$i$id"
  ip link set "ccd$i$id" netns "$ns"
  ip link set "ccs$i$id" netns "$sw"
  ip -n "$ns" addr add "10.78.0.$((i + 1))/24" dev "ccd$i$id"
  ip -n "$ns" link set lo up
  ip -n "$ns" link set "ccd$i$id" up
  ip -n "$sw" link set "ccs$i$id" master br0
  ip -n "$sw" link set "ccs$i$id" up
  rate=$rate_mbit
  [[ $mode == shaped && $i -eq $bad_node ]] && rate=$((rate_mbit / 4))
  # Egress of the node (its uploads) and of the switch port towards it (its downloads).
  ip netns exec "$ns" tc qdisc add dev "ccd$i$id" root tbf rate "${rate}mbit" burst 64kb latency 100ms
  ip netns exec "$sw" tc qdisc add dev "ccs$i$id" root tbf rate "${rate}mbit" burst 64kb latency 100ms
  [[ $i -gt 0 ]] && apps+=(:)
  apps+=(-np 1 "$netns_exec" --hostname "diag-node$i" "$ns" "$cctune" diagnose --backend mpi --probe tcp
         --socket-ifname ccd --latency-size 8 --bandwidth-size 1M --max-time 1 --probe-bytes 256K --probe-iters 40
         -o "$work/out")
done

set +e
timeout 150 "$mpiexec" --allow-run-as-root --oversubscribe \
  --mca btl tcp,self --mca btl_tcp_if_include 10.78.0.0/24 "${apps[@]}" > "$work/stdout" 2> "$work/stderr"
rc=$?
set -e
cat "$work/stdout"
sed 's/^/stderr: /' "$work/stderr" | head -20
want=0
[[ $mode == shaped ]] && want=5
[[ $rc -eq $want ]] || { echo "FAIL: cctune diagnose exited $rc, expected $want"; exit 1; }
grep -q "^verdict: " "$work/stdout" || { echo "FAIL: no verdict line"; exit 1; }

python3 - "$work/out" "$mode" "diag-node$bad_node" "$here/../../../configs/schema/diagnosis.schema.json" <<'PY'
import json, os, sys
import jsonschema
out, mode, bad, schema = sys.argv[1:]
d = json.load(open(os.path.join(out, "diagnosis.json")))
jsonschema.validate(d, json.load(open(schema)))
assert d["schema"] == "cctune.diagnosis/1", d["schema"]
assert sorted(d["cluster"]["hosts"]) == [f"diag-node{i}" for i in range(4)], d["cluster"]
pairs = d["figures"]["pairs"]
assert len(pairs) == 6, f"{len(pairs)} pairs, expected all 6 of 4 nodes"
for p in pairs:
    assert p["probe_GBps"] and p["busbw_GBps"], p
    tag = "bad" if bad in p["hosts"] else "ok "
    print(f"{tag} {p['hosts'][0]} <-> {p['hosts'][1]}: probe {p['probe_GBps']:.4f} GB/s, allreduce busbw {p['busbw_GBps']:.4f} GB/s")
suspects = [(s["kind"], s["host"]) for s in d["suspects"]]
print("suspects:", suspects, "verdict:", d["verdict"])
if mode == "shaped":
    assert suspects == [("nic", bad)], f"expected exactly the NIC/link of {bad}, got {suspects}"
    assert all(e.startswith(("pair probe", "pair mpi")) for e in d["suspects"][0]["evidence"]), d["suspects"][0]
else:
    assert suspects == [], f"expected no suspects, got {suspects}"
for f in ("pairs.json", "all_nodes.json", "report.html", "pair_probes.json"):
    assert os.path.exists(os.path.join(out, f)), f
html = open(os.path.join(out, "report.html")).read()
assert 'id="diagnosis"' in html
print("OK")
PY
