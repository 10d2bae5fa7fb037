#!/usr/bin/env bash
# `cctune probe` under mpirun on a machine without RDMA: TCP fallback said in one line,
# odd rank counts run (one rank idle per round), bad inputs are one-line errors with
# their exit codes, and nothing hangs.
# Usage: bad_inputs_test.sh CCTUNE MPIEXEC
set -uo pipefail
cctune=$1 mpiexec=$2
mpirun=("$mpiexec" --allow-run-as-root --oversubscribe --mca btl tcp,self)
fast=(-b 64K -e 64K -n 20 -w 2 --lat-iters 50 --timeout 10)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

if [[ -e /sys/class/infiniband ]] && ls /sys/class/infiniband/* >/dev/null 2>&1; then
  echo "SKIP: this machine has RDMA devices; the no-RDMA checks do not apply"; exit 77
fi

# 1. auto: no RDMA -> one line saying so, then TCP bandwidth and latency.
timeout 60 "${mpirun[@]}" -np 2 "$cctune" probe "${fast[@]}" -o "$work/net.json" >"$work/out" 2>"$work/err"
rc=$?; cat "$work/out" "$work/err"
[[ $rc -eq 0 ]] || fail "probe (auto) exited $rc"
[[ $(grep -c "no active RDMA device" "$work/err") -eq 1 ]] || fail "expected exactly one 'no active RDMA device' line"
grep -q "network probe: tcp" "$work/out" || fail "no TCP table"
python3 -c "
import json,sys; n=json.load(open('$work/net.json'))
p=n['pairs'][0]; assert n['transport']=='tcp' and p['error'] is None
assert p['bandwidth'][0]['avg_GBps']>0 and p['latency']['typical_us']>0, p" || fail "bad net.json"

# 2. --probe ib without RDMA: environment error (exit 3), one line.
timeout 60 "${mpirun[@]}" -np 2 "$cctune" probe --probe ib "${fast[@]}" >"$work/out" 2>"$work/err"
rc=$?; cat "$work/err"
[[ $rc -eq 3 ]] || fail "--probe ib exited $rc, expected 3"
[[ $(grep -c "cctune: error:" "$work/err") -eq 1 ]] || fail "expected one error line"
grep -q "no active RDMA device" "$work/err" || fail "message does not say why"

# 3. unknown --socket-ifname: usage error (exit 2), names the interfaces that exist.
timeout 60 "${mpirun[@]}" -np 2 "$cctune" probe --probe tcp --socket-ifname nosuch0 "${fast[@]}" >"$work/out" 2>"$work/err"
rc=$?; cat "$work/err"
[[ $rc -eq 2 ]] || fail "unknown ifname exited $rc, expected 2"
[[ $(grep -c "cctune: error:" "$work/err") -eq 1 ]] || fail "expected one error line"
grep -q "nosuch0" "$work/err" && grep -q "lo" "$work/err" || fail "message does not name the interface and the choices"

# 4. odd rank count: runs, says one rank sits out each round, measures every pair.
timeout 60 "${mpirun[@]}" -np 3 "$cctune" probe --probe tcp --socket-ifname lo "${fast[@]}" -o "$work/net3.json" >"$work/out" 2>"$work/err"
rc=$?; cat "$work/out" "$work/err"
[[ $rc -eq 0 ]] || fail "-np 3 exited $rc"
grep -q "odd" "$work/err" || fail "odd rank count not said"
python3 -c "
import json; n=json.load(open('$work/net3.json'))
assert n['schedule']['rounds']==3 and len(n['pairs'])==3 and all(p['error'] is None for p in n['pairs'])" || fail "bad net3.json"

# 5. one rank: usage error, no hang.
timeout 60 "${mpirun[@]}" -np 1 "$cctune" probe --probe tcp "${fast[@]}" >"$work/out" 2>"$work/err"
rc=$?; cat "$work/err"
[[ $rc -eq 2 ]] || fail "-np 1 exited $rc, expected 2"
# 6. --gpu-buffers with TCP: usage error (exit 2), one line, before anything is measured.
timeout 60 "${mpirun[@]}" -np 2 "$cctune" probe --probe tcp --gpu-buffers "${fast[@]}" >"$work/out" 2>"$work/err"
rc=$?; cat "$work/err"
[[ $rc -eq 2 ]] || fail "--probe tcp --gpu-buffers exited $rc, expected 2"
[[ $(grep -c "cctune: error:" "$work/err") -eq 1 ]] || fail "expected one error line"
grep -q -- "--gpu-buffers needs the ibverbs probe" "$work/err" || fail "message does not say why"

# 7. --gpu-buffers where auto would fall back to TCP, and with --probe ib: environment
#    error (exit 3), one line naming the missing RDMA device (what a GPU host without
#    RDMA shows too: tests/gpu/dmabuf_gpu_check.sh).
for kind in auto ib; do
  timeout 60 "${mpirun[@]}" -np 2 "$cctune" probe --probe $kind --gpu-buffers "${fast[@]}" >"$work/out" 2>"$work/err"
  rc=$?; cat "$work/err"
  [[ $rc -eq 3 ]] || fail "--probe $kind --gpu-buffers exited $rc, expected 3"
  [[ $(grep -c "cctune: error:" "$work/err") -eq 1 ]] || fail "expected one error line"
  grep -q "no active RDMA device" "$work/err" || fail "message does not say why"
  grep -q "measuring TCP" "$work/err" && fail "--gpu-buffers must not fall back to TCP"
done
echo "PASS"
