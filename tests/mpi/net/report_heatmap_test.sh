#!/usr/bin/env bash
# The report's network heatmap shows what a real probe measured: two emulated hosts (network
# namespaces with host names of their own, joined by a veth pair), one MPI rank in each, run
# `cctune sweep --backend mpi --probe tcp`; the results file must validate against the schema
# and `cctune report` must draw the measured pair (initiator row, responder column) with the
# probe's own bandwidth. Usage: report_heatmap_test.sh CCTUNE MPIEXEC [KEEP_DIR].
# Exit 77 (skip) without root or `ip netns`. KEEP_DIR: copy results.json and the report there.
set -euo pipefail
cctune=$1 mpiexec=$2 keep=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
schema=$here/../../../configs/schema/results.schema.json
if [[ $(id -u) -ne 0 ]]; then echo "SKIP: needs root to create network namespaces"; exit 77; fi
if ! command -v ip >/dev/null || ! ip netns list >/dev/null 2>&1; then echo "SKIP: 'ip netns' unavailable"; exit 77; fi
if ! command -v unshare >/dev/null; then echo "SKIP: no unshare"; exit 77; fi

id=$$
A=ccrA$id B=ccrB$id
work=$(mktemp -d)
cleanup() {
  ip netns del "$A" 2>/dev/null || true
  ip netns del "$B" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

ip netns add "$A"
ip netns add "$B"
ip link add "ccrA$id" type veth peer name "ccrB$id"
ip link set "ccrA$id" netns "$A"
ip link set "ccrB$id" netns "$B"
ip -n "$A" addr add 10.79.0.1/24 dev "ccrA$id"
ip -n "$B" addr add 10.79.0.2/24 dev "ccrB$id"
for ns in "$A" "$B"; do ip -n "$ns" link set lo up; done
ip -n "$A" link set "ccrA$id" up
ip -n "$B" link set "ccrB$id" up

sweep=(sweep --backend mpi --collectives allreduce -b 1K -e 1K --max-time 0.05 --probe tcp --no-tune -o "$work/sweep")
set +e
NCCL_SOCKET_IFNAME=ccr timeout 100 "$mpiexec" --allow-run-as-root --oversubscribe -x NCCL_SOCKET_IFNAME \
  --mca btl tcp,self --mca btl_tcp_if_include 10.79.0.0/24 \
  -np 1 "$here/netns_exec.py" --hostname report-hostA "$A" "$cctune" "${sweep[@]}" : \
  -np 1 "$here/netns_exec.py" --hostname report-hostB "$B" "$cctune" "${sweep[@]}" > "$work/sweep.out" 2>&1
rc=$?
set -e
tail -n 5 "$work/sweep.out"
[[ $rc -eq 0 ]] || { echo "FAIL: cctune sweep --probe tcp exited $rc"; exit 1; }

"$cctune" report "$work/sweep/results.json" -o "$work/report.html" > "$work/report.out" 2>&1 ||
  { cat "$work/report.out"; echo "FAIL: cctune report exited non-zero"; exit 1; }
if [[ -n $keep ]]; then cp "$work/sweep/results.json" "$work/report.html" "$keep/"; fi

python3 - "$work/sweep/results.json" "$work/report.html" "$schema" <<'PY'
import json, re, sys
import jsonschema
results_path, html_path, schema_path = sys.argv[1:]
r = json.load(open(results_path))
jsonschema.validate(r, json.load(open(schema_path)))
assert sorted(r["meta"]["hostnames"]) == ["report-hostA", "report-hostB"], r["meta"]["hostnames"]
net = r["net"]
assert net["transport"] == "tcp", net["transport"]
(pair,) = net["pairs"]
assert pair["error"] is None and (pair["initiator"], pair["responder"]) == (0, 1), pair
measured = pair["bandwidth"][-1]["avg_GBps"]
assert measured > 0, pair

html = open(html_path).read()
network = html[html.index('<section id="network">'):]
network = network[:network.index("</section>")]
for sign in ("No rank pair", "not a network probe's section", "failed or measured no bandwidth"):
    assert sign not in network, f"the report says '{sign}' of a real probe's net section"
cells = re.findall(r'<rect data-cell="(\d+),(\d+)"[^>]*><title>([^<]*)</title>', network)
assert [(int(a), int(b)) for a, b, _ in cells] == [(0, 1)], f"heatmap cells {cells}, expected only initiator 0 -> responder 1"
shown = float(re.search(r": ([0-9.e+-]+) GB/s", cells[0][2]).group(1))
assert abs(shown / measured - 1) < 0.01, f"heatmap shows {shown} GB/s, the probe measured {measured} GB/s"
print(f"report heatmap: rank 0 -> 1 {shown} GB/s (probe: {measured:.4f} GB/s over veth between two namespaces)")
PY
echo OK
