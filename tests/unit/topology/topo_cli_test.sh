#!/bin/bash
# topo_cli_test.sh CCTUNE SOURCE_DIR CASE [MPIEXEC]: `cctune topo` end to end.
set -u
cctune=$1 src=$2 case=$3 mpiexec=${4:-mpiexec}
fx=$src/tests/fixtures/topology
schema=$src/configs/schema/topology.schema.json
validate="python3 $src/tests/unit/topology/validate_topology.py $schema"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

case $case in
live)  # this machine: CPUs, NUMA and interfaces; absences said plainly; exit 0
  "$cctune" topo > "$tmp/out" 2> "$tmp/err" || fail "exit $? $(cat "$tmp/err")"
  cat "$tmp/out"
  grep -q "CPU: " "$tmp/out" || fail "no CPU line"
  grep -q "NUMA node 0: CPUs" "$tmp/out" || fail "no NUMA line"
  grep -q "Network interfaces:" "$tmp/out" || fail "no interfaces"
  if [ ! -e /dev/nvidiactl ]; then grep -q "GPUs: none found: .*libnvidia-ml.so.1" "$tmp/out" || fail "no GPU absence reason"; fi
  if [ ! -d /sys/class/infiniband ]; then grep -q "RDMA devices: none found: " "$tmp/out" || fail "no RDMA absence reason"; fi
  ;;
json)  # --json to stdout and -o FILE both validate against the schema
  "$cctune" topo --json > "$tmp/stdout.json" || fail "exit $?"
  $validate "$tmp/stdout.json" || fail "stdout JSON does not validate"
  "$cctune" topo -o "$tmp/file.json" > /dev/null || fail "exit $?"
  $validate "$tmp/file.json" || fail "-o JSON does not validate"
  # The schema must reject what it should: a wrong class label.
  python3 - "$tmp/stdout.json" "$tmp/broken.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); j["nodes"][0]["gpus"] = [{"index": 0}]
json.dump(j, open(sys.argv[2], "w"))
PY
  ! $validate "$tmp/broken.json" 2>/dev/null || fail "schema accepted a GPU with no fields"
  ;;
from)  # fixtures: DGX-like hwloc XML + facts; H200 nvidia-smi + NCCL XML; saved JSON round trip
  "$cctune" topo --from-hwloc "$fx/dgx-h100-like.xml" --facts "$fx/dgx-h100-like.facts.json" > "$tmp/dgx.txt" || fail "exit $?"
  cat "$tmp/dgx.txt"
  grep -Eq "^GPU0 +X +NV18 .* PIX +PXB +NODE +NODE +SYS " "$tmp/dgx.txt" || fail "DGX GPU0 row"
  "$cctune" topo --from-hwloc "$fx/dgx-h100-like.xml" --facts "$fx/dgx-h100-like.facts.json" -o "$tmp/dgx.json" --json || fail "exit $?"
  $validate "$tmp/dgx.json" || fail "DGX JSON does not validate"
  "$cctune" topo --from "$tmp/dgx.json" > "$tmp/dgx2.txt" || fail "--from exit $?"
  diff "$tmp/dgx.txt" "$tmp/dgx2.txt" || fail "--from renders differently"
  "$cctune" topo --from-nvidia-smi "$fx/h200x8/nvsmi-q.txt" --nccl-topo "$fx/h200x8/nccl-topo.xml" > "$tmp/h200.txt" || fail "exit $?"
  cat "$tmp/h200.txt"
  grep -Eq "^GPU7 +NV18 +NV18 +NV18 +NV18 +NV18 +NV18 +NV18 +X " "$tmp/h200.txt" || fail "H200 GPU7 row"
  grep -q "GPU<->GPU over NVLink (NV18): 478.1 GB/s" "$tmp/h200.txt" || fail "H200 NVLink limit"
  ;;
bad)  # broken inputs: one line naming the file, exit 2
  for f in bad/truncated-topology.json bad/invalid-topology.json; do
    "$cctune" topo --from "$fx/$f" > /dev/null 2> "$tmp/err"; rc=$?
    cat "$tmp/err"
    [ $rc -eq 2 ] || fail "--from $f: exit $rc, expected 2"
    [ "$(wc -l < "$tmp/err")" -eq 1 ] || fail "--from $f: not one line"
    grep -q "$fx/$f" "$tmp/err" || fail "--from $f: file not named"
  done
  "$cctune" topo --from-hwloc "$fx/bad/truncated-hwloc.xml" --facts "$fx/dgx-h100-like.facts.json" > /dev/null 2> "$tmp/err"; rc=$?
  cat "$tmp/err"
  [ $rc -eq 2 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -q "truncated-hwloc.xml" "$tmp/err" || fail "truncated hwloc XML: exit $rc"
  ;;
mpirun)  # two ranks on one host: one probe, one node, rank 0 prints
  "$mpiexec" --allow-run-as-root --oversubscribe -np 2 "$cctune" topo --json > "$tmp/mpi.json" 2> "$tmp/err" || fail "mpirun exit $? $(cat "$tmp/err")"
  $validate "$tmp/mpi.json" || fail "mpirun JSON does not validate"
  python3 -c "import json,sys; j=json.load(open(sys.argv[1])); assert len(j['nodes'])==1, j['groups']" "$tmp/mpi.json" || fail "expected one node"
  ;;
*) fail "unknown case $case" ;;
esac
echo PASS
