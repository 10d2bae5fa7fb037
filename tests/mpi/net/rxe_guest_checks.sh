#!/usr/bin/env bash
# Runs inside the soft-RoCE VM (tools/rxe-vm.sh): cctune's ibverbs probe against the
# kernel's rdma_rxe device rxe0 under a real mpirun. Every rank uses rxe0 (pairs loop back
# through the device), so this checks behaviour and bookkeeping, not speed: device and GID
# discovery (RoCE v2 with an IPv4 address first), QP transitions, RDMA WRITE bandwidth with a
# window and several QPs, the ping-pong latency (inline and not), concurrent pairs, odd rank
# counts, the sweep's net section, and the errors that need a device to reach.
# Usage: rxe_guest_checks.sh CCTUNE MPIEXEC WORK_DIR
set -uo pipefail
cctune=$1 mpiexec=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpirun=("$mpiexec" --oversubscribe --bind-to none --mca btl self,vader,tcp)
# Small counts: the VM is emulated, and its ping-pong is bounded by the guest's 4 ms tick.
fast=(-n 100 -w 5 --lat-iters 100 --timeout 60)
failures=0
step() { echo; echo "=== $*"; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
check() { python3 "$here/check_net.py" "$@" || fail "check_net.py $*"; }

step "the device the kernel made"
ibv_devinfo -d rxe0 | grep -E "hca_id|state|active_mtu|link_layer" || fail "rxe0 is not there"

step "cctune topo sees rxe0"
"$cctune" topo --json > "$work/topo.json" || fail "cctune topo exited $?"
python3 - "$work/topo.json" <<'EOF' || fail "topology has no rxe0 NIC"
import json, sys
t = json.load(open(sys.argv[1]))
node = t["nodes"][0] if "nodes" in t else t
text = json.dumps(node)
assert "rxe0" in text, "rxe0 missing"
print("topology lists rxe0")
EOF

step "probe auto: 2 ranks, 3 sizes"
timeout 300 "${mpirun[@]}" -np 2 "$cctune" probe -b 4K -e 256K -f 8 "${fast[@]}" -o "$work/np2.json"
rc=$?; [[ $rc -eq 0 ]] || fail "probe -np 2 exited $rc"
check "$work/np2.json" --transport ib --pairs 1 --sizes 4096,32768,262144 --lat-method rdma_write_poll_last_byte

step "probe ib: 4 QPs, window 8, latency above the inline limit"
timeout 300 "${mpirun[@]}" -np 2 "$cctune" probe --probe ib --ib-dev rxe0:1 --qps 4 --window 8 -b 64K -e 64K \
  --lat-bytes 4K "${fast[@]}" -o "$work/qps4.json"
rc=$?; [[ $rc -eq 0 ]] || fail "probe --qps 4 exited $rc"
check "$work/qps4.json" --transport ib --pairs 1 --sizes 65536 --qps 4 --lat-bytes 4096

step "probe ib: 4 ranks, two pairs at a time"
timeout 400 "${mpirun[@]}" -np 4 "$cctune" probe --probe ib -b 64K -e 64K "${fast[@]}" -o "$work/np4.json"
rc=$?; [[ $rc -eq 0 ]] || fail "probe -np 4 exited $rc"
check "$work/np4.json" --transport ib --pairs 6 --rounds 3 --sizes 65536

step "probe ib: 3 ranks, one sits out each round"
timeout 400 "${mpirun[@]}" -np 3 "$cctune" probe --probe ib -b 64K -e 64K "${fast[@]}" -o "$work/np3.json" 2> "$work/np3.err"
rc=$?; cat "$work/np3.err"; [[ $rc -eq 0 ]] || fail "probe -np 3 exited $rc"
grep -q "odd" "$work/np3.err" || fail "odd rank count not said"
check "$work/np3.json" --transport ib --pairs 3 --rounds 3 --sizes 65536

step "a stalled peer: rank 1 answers the latency ping-pong only after 8 s, the timeout is 3 s"
start=$(date +%s)
CCTUNE_TEST_PROBE_STALL=1:8 timeout 300 "${mpirun[@]}" -np 2 -x CCTUNE_TEST_PROBE_STALL "$(dirname "$cctune")/cctune-test" probe --probe ib \
  -b 64K -e 64K -n 100 -w 5 --lat-iters 100 --timeout 3 -o "$work/stall.json" > "$work/stall.out" 2>&1
rc=$?; took=$(( $(date +%s) - start )); tail -n 4 "$work/stall.out"
[[ $rc -eq 1 ]] || fail "stalled peer: exit $rc, expected 1 (a pair failed)"
[[ $took -lt 120 ]] || fail "stalled peer: took $took s"
python3 -c "
import json; n = json.load(open('$work/stall.json')); p = n['pairs'][0]
assert n['summary']['pairs_failed'] == 1 and 'within the timeout' in p['error'], p
print('stalled pair recorded:', p['error'], '| responder:', p.get('responder_error'))" || fail "stalled pair not recorded as failed"

step "sweep --probe ib writes the net section"
timeout 400 "${mpirun[@]}" -np 2 "$cctune" sweep --backend mpi --collectives allreduce -b 1K -e 1K --max-time 0.05 \
  --probe ib --no-tune -o "$work/sweep" > "$work/sweep.out" 2>&1
rc=$?; tail -n 5 "$work/sweep.out"; [[ $rc -eq 0 ]] || fail "sweep --probe ib exited $rc"
python3 -c "
import json, sys; r = json.load(open('$work/sweep/results.json'))
net = r['net']; assert net['transport'] == 'ib' and net['pairs'][0]['error'] is None, net
print('results.json net: ib,', net['pairs'][0]['bandwidth'][-1]['avg_Gbps'], 'Gb/s')" || fail "results.json has no ib net section"

step "bad inputs that need a device"
timeout 120 "${mpirun[@]}" -np 2 "$cctune" probe --probe ib --ib-dev mlx5_9 "${fast[@]}" > "$work/out" 2> "$work/err"
rc=$?; cat "$work/err"
[[ $rc -eq 2 ]] || fail "--ib-dev mlx5_9 exited $rc, expected 2"
[[ $(grep -c "cctune: error:" "$work/err") -eq 1 ]] || fail "--ib-dev mlx5_9: expected one error line"
grep -q "rxe0:1" "$work/err" || fail "--ib-dev error does not name the active port rxe0:1"

CCTUNE_CUDA_DRIVER_LIB=libcuda-absent.so.1 timeout 120 "${mpirun[@]}" -np 2 -x CCTUNE_CUDA_DRIVER_LIB "$cctune" probe \
  --probe ib --gpu-buffers "${fast[@]}" > "$work/out" 2> "$work/err"
rc=$?; cat "$work/err"
[[ $rc -eq 3 ]] || fail "--gpu-buffers without a CUDA driver exited $rc, expected 3"
[[ $(grep -c "cctune: error:" "$work/err") -eq 1 ]] || fail "--gpu-buffers: expected one error line"

echo
if [[ $failures -eq 0 ]]; then echo "rxe probe checks: all passed"; else echo "rxe probe checks: $failures failed"; fi
[[ $failures -eq 0 ]]
