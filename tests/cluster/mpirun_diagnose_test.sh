#!/usr/bin/env bash
# cctune diagnose under mpirun across 3 one-box hosts with 2 NICs each at 400 Mbit/s, node2's eth0
# shaped to a tenth: it must name exactly the NIC/link eth0 of node2 (kind nic, host node2, nic
# eth0), nothing else, and exit 5; diagnosis.json validates against its schema.
# MPI backend (Open MPI's TCP BTL on eth0, the cluster's default) and the TCP probe over eth0.
# Usage: mpirun_diagnose_test.sh CCTUNE WORKDIR SCHEMA. Exit 77 (skip) without root, namespaces or mpirun.
set -uo pipefail
cctune=$1 work=$2 schema=$3
test_name=cluster.mpirun_diagnose test_tag=dia
source "$(dirname "$0")/lib.sh"
require_cluster_tools
require_mpirun
python3 -c 'import jsonschema' 2>/dev/null || skip "python3 has no jsonschema (apt-get install python3-jsonschema)"
rm -rf "$work" && mkdir -p "$work"
t0=$SECONDS
cluster_up --hosts 3 --nics 2 --link 400mbit --slow node2:eth0=40mbit
timeout 240 "${on[@]}" node0 -- mpirun --allow-run-as-root --host node0,node1,node2 "$cctune" diagnose --backend mpi --probe tcp \
  --socket-ifname eth0 --latency-size 8 --bandwidth-size 256K --max-time 0.5 --probe-bytes 256K --probe-iters 40 \
  -o "$work/out" > "$work/stdout" 2> "$work/stderr"
rc=$?
cat "$work/stdout"
[[ $rc -eq 5 ]] || { sed 's/^/stderr: /' "$work/stderr" | head -20; fail "diagnose exited $rc, expected 5"; }
python3 - "$work/out/diagnosis.json" "$schema" <<'PY' || fail "diagnosis check"
import json, sys
import jsonschema
d = json.load(open(sys.argv[1]))
jsonschema.validate(d, json.load(open(sys.argv[2])))
assert sorted(d["cluster"]["hosts"]) == ["node0", "node1", "node2"], d["cluster"]
suspects = [(s["kind"], s["host"], s.get("nic")) for s in d["suspects"]]
print("suspects:", suspects, "| verdict:", d["verdict"])
assert suspects == [("nic", "node2", "eth0")], f"expected exactly NIC/link eth0 of node2, got {suspects}"
assert "NIC/link eth0 of node2" in d["verdict"], d["verdict"]
probe = [p for p in d["figures"]["pairs"] if "node2" in p["hosts"]]
assert all(abs(p["probe_limit_GBps"] - 0.005) < 1e-9 for p in probe), probe   # the shaped 40 Mbit/s, not the veth's 10 Gb/s
PY
cluster_down_clean
note "OK in $((SECONDS - t0)) s"
