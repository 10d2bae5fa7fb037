#!/usr/bin/env bash
# cctune diagnose through NCCL across 3 one-box hosts, one of whose links is throttled (issue 44):
#   tests/gpu/onebox_diagnose_check.sh BUILD_DIR OUT_DIR
# A one-box cluster (tools/onebox-cluster.sh) of 3 hosts x 1 GPU, links RATE (default 25gbit),
# node2's eth0 at a tenth of it. On fewer than 3 GPUs the hosts share the machine's GPUs
# (--share-gpus, a test mode: NCCL still runs across hosts over their links, which stay far
# below a GPU's speed). One supervisor per host under mpirun; diagnose's pair probe (TCP over
# eth0) and pair collectives through NCCL's sockets must name NIC/link eth0 of node2 and nothing
# else (exit 5). Needs root, unshare, nsenter, mpirun; ip/tc or the carried iproute2 as
# onebox_gpu_check.sh. SKIP and exit 0 without a GPU; 1 on a failed check.
set -uo pipefail
build=$(cd "${1:?usage: onebox_diagnose_check.sh BUILD_DIR OUT_DIR}" && pwd)
out=${2:?usage: onebox_diagnose_check.sh BUILD_DIR OUT_DIR}
repo=$(cd "$(dirname "$0")/../.." && pwd)
rate=${RATE:-25gbit} slow=${SLOW_RATE:-2500mbit}
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset NCCL_SOCKET_IFNAME NCCL_HOSTID
fail() { echo "FAIL: $*"; exit 1; }
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
((gpus >= 1)) || { echo "SKIP: no GPU"; exit 0; }
if ((gpus < 3)); then
  export ONEBOX_SHARE_GPUS=1
  echo "TEST MODE: $gpus GPU(s) for 3 hosts: the hosts share them (functional; the links are what diagnose judges)"
fi
mkdir -p "$out"; out=$(cd "$out" && pwd)
rm -rf "$out/diag"
export ONEBOX_NAME=dia$$ ONEBOX_SLOW="node2:eth0=$slow"
onebox=("$repo/tools/onebox-cluster.sh")
trap '"${onebox[@]}" down >/dev/null 2>&1' EXIT
"$repo/tests/gpu/onebox_up.sh" 3 1 "$rate" "" || fail "the cluster did not come up"
"${onebox[@]}" status
mpi=(mpirun --host node0:1,node1:1,node2:1 --bind-to none -x NCCL_NVLS_ENABLE -x NCCL_SOCKET_IFNAME=eth0)
[[ -n ${LD_LIBRARY_PATH:-} ]] && mpi+=(-x LD_LIBRARY_PATH)
read -r -a extra <<<"${MPI_EXTRA:-}"   # more mpirun words: a CPU dry run passes the selftest module's
mpi+=("${extra[@]}")
timeout 400 "${onebox[@]}" run node0 -- "${mpi[@]}" "$build/cctune" diagnose --backend nccl --probe tcp --socket-ifname eth0 \
  --latency-size 8 --bandwidth-size 64M --max-time 0.5 --probe-bytes 16M --probe-iters 20 -o "$out/diag" \
  > "$out/stdout.txt" 2> "$out/stderr.txt"
rc=$?
cat "$out/stdout.txt"
[[ $rc -eq 5 ]] || { tail -20 "$out/stderr.txt"; fail "cctune diagnose exited $rc, expected 5 (a suspect)"; }
python3 - "$out/diag/diagnosis.json" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
assert d["cluster"]["backend"] == "nccl" and sorted(d["cluster"]["hosts"]) == ["node0", "node1", "node2"], d["cluster"]
suspects = [(s["kind"], s["host"], s.get("nic")) for s in d["suspects"]]
pairs = d["figures"]["pairs"]
for p in pairs:
    print(f"pair {'-'.join(p['hosts'])}: busbw {p['busbw_GBps']:.3f} GB/s, probe {p.get('probe_GBps') or 0:.3f} GB/s "
          f"(limit {p.get('probe_limit_GBps') or 0:.3f})")
print("suspects:", suspects, "| verdict:", d["verdict"])
assert suspects == [("nic", "node2", "eth0")], f"expected exactly NIC/link eth0 of node2, got {suspects}"
print("PASS: diagnose through NCCL across 3 one-box hosts named NIC/link eth0 of node2 alone")
PY
