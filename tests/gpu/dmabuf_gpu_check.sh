#!/usr/bin/env bash
# The network probe's GPU buffers (GPUDirect RDMA through dma-buf) on a GPU host:
#   tests/gpu/dmabuf_gpu_check.sh BUILD_DIR [OUTPUT_DIR]
# 1. tests/gpu/dmabuf_check: every GPU allocates through net/gpu_buffer, exports a
#    dma-buf fd (fd >= 0, size >= the allocation), round-trips a pattern, frees, no leak.
# 2. The same with CCTUNE_CUDA_DRIVER_LIB naming a missing library: one-line error, exit 3.
# 3. `cctune probe --probe ib --gpu-buffers` under mpirun -np 2: without RDMA devices,
#    the one-line "no active RDMA device" error, exit 3, no hang; with RDMA devices, a
#    real measurement whose endpoints say gpu:<i>:dmabuf.
# Skips (exit 0) when nvidia-smi finds no GPU. Never uses NVLink multicast.
set -uo pipefail
export NCCL_NVLS_ENABLE=0  # never NVLS/multicast in tests
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
build=$(cd "${1:?usage: tests/gpu/dmabuf_gpu_check.sh BUILD_DIR [OUTPUT_DIR]}" && pwd)
out=${2:-${OUT:-$(mktemp -d /tmp/cctune-dmabuf-gpu.XXXXXX)}}
mkdir -p "$out"
command -v nvidia-smi >/dev/null 2>&1 || { echo "SKIP: nvidia-smi not found (no NVIDIA driver)"; exit 0; }
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
[[ $ngpu -ge 1 ]] || { echo "SKIP: nvidia-smi finds no GPU"; exit 0; }
prog=$build/tests/gpu/dmabuf_check
cctune=$build/cctune
[[ -x $prog ]] || { echo "FAIL: $prog not built (target dmabuf_check)"; exit 1; }
[[ -x $cctune ]] || { echo "FAIL: $cctune not built"; exit 1; }
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
{ uname -r; nvidia-smi --query-gpu=index,name,driver_version,pci.bus_id --format=csv,noheader;
  cat /sys/module/nvidia/version 2>/dev/null; modinfo -F license nvidia 2>/dev/null; } > "$out/env.txt" 2>&1
cat "$out/env.txt"

echo "=== 1. dmabuf_check on $ngpu GPU(s)"
timeout 120 "$prog" > "$out/dmabuf_check.txt" 2>&1
rc=$?; cat "$out/dmabuf_check.txt"
dmabuf_unsupported=""
case $rc in
  0) grep -q "dmabuf_check: PASS" "$out/dmabuf_check.txt" || fail "dmabuf_check exited 0 without PASS" ;;
  77) dmabuf_unsupported=$(tail -n 1 "$out/dmabuf_check.txt") ;;
  *) fail "dmabuf_check exited $rc" ;;
esac

echo "=== 2. missing driver library"
CCTUNE_CUDA_DRIVER_LIB=libcuda-cctune-absent.so.1 timeout 30 "$prog" > "$out/missing.txt" 2>&1
rc=$?; cat "$out/missing.txt"
[[ $rc -eq 3 ]] || fail "missing library: exit $rc, expected 3"
[[ $(wc -l < "$out/missing.txt") -eq 1 ]] || fail "missing library: expected one line"
grep -q "libcuda-cctune-absent.so.1" "$out/missing.txt" || fail "missing library: message does not name it"

echo "=== 3. cctune probe --probe ib --gpu-buffers, mpirun -np 2"
mpirun=(mpirun --allow-run-as-root --oversubscribe --mca btl tcp,self -x NCCL_NVLS_ENABLE)
fast=(-b 64K -e 1M -f 4 -n 200 -w 20 --lat-iters 500 --timeout 20)
if ls /sys/class/infiniband/* >/dev/null 2>&1; then
  echo "RDMA devices present: $(ls /sys/class/infiniband | tr '\n' ' ')- measuring for real"
  timeout 120 "${mpirun[@]}" -np 2 "$cctune" probe --probe ib --gpu-buffers "${fast[@]}" -o "$out/net.json" \
    > "$out/probe.txt" 2> "$out/probe.err"
  rc=$?; cat "$out/probe.txt" "$out/probe.err"
  [[ $rc -eq 0 ]] || fail "probe with GPU buffers exited $rc"
  python3 -c "
import json,sys; n=json.load(open('$out/net.json'))
assert all(e['buffer'].startswith('gpu:') for e in n['endpoints']), n['endpoints']
assert all(p['error'] is None and p['latency_method']=='rdma_write_with_imm' for p in n['pairs']), n['pairs']" \
    || fail "net.json does not show GPU buffers measured"
else
  timeout 60 "${mpirun[@]}" -np 2 "$cctune" probe --probe ib --gpu-buffers "${fast[@]}" > "$out/probe.txt" 2> "$out/probe.err"
  rc=$?; cat "$out/probe.err"
  [[ $rc -ne 124 ]] || fail "probe hung (killed by timeout 60)"
  [[ $rc -eq 3 ]] || fail "probe exited $rc, expected 3"
  [[ $(grep -c "cctune: error:" "$out/probe.err") -eq 1 ]] || fail "expected exactly one error line"
  grep -q "no active RDMA device" "$out/probe.err" || fail "the error does not say there is no RDMA device"
fi

if [[ $fails -gt 0 ]]; then echo "FAIL: $fails check(s) failed; logs in $out"; exit 1; fi
if [[ -n $dmabuf_unsupported ]]; then
  echo "SKIP: the GPU cannot export dma-buf, so no buffer was exported (the refusal and steps 2-3 passed): $dmabuf_unsupported"
  exit 0
fi
echo "PASS: dma-buf export on $ngpu GPU(s), missing-driver error, probe refusal without RDMA; logs in $out"
