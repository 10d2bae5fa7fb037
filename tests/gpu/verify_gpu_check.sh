#!/usr/bin/env bash
# `cctune verify` with real NCCL: sweep NCCL's default against forced configs, tune a
# profile from it, then verify the profile A/B against NCCL's default in interleaved rounds
# and print the table. The profile was chosen from the same machine's measurements, so a
# regression (exit 4) here means either noise beyond the CI or a plugin that does not steer
# NCCL as the sweep's in-process control did; the table says which sizes.
#
# Usage: tests/gpu/verify_gpu_check.sh BUILD_DIR OUTPUT_DIR
#   BUILD_DIR configured with -DCCTUNE_WITH_CUDA=ON (targets cctune, cctune-nccl,
#   nccl-tuner-cctune built). Exits 0 with "SKIP: reason" without a GPU; otherwise verify's
#   own exit status (0 ok, 4 a size regressed, other: error).
set -u
build=${1:?usage: verify_gpu_check.sh BUILD_DIR OUTPUT_DIR}
out=${2:?usage: verify_gpu_check.sh BUILD_DIR OUTPUT_DIR}
cctune=$build/cctune
export NCCL_NVLS_ENABLE=0   # NVLink SHARP stays off on these machines

command -v nvidia-smi >/dev/null 2>&1 || { echo "SKIP: nvidia-smi not found (no NVIDIA driver on this machine)"; exit 0; }
ngpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
[ "$ngpus" -ge 1 ] || { echo "SKIP: no GPU found"; exit 0; }
[ -x "$cctune" ] || { echo "FAIL: $cctune is not built"; exit 1; }
[ -f "$build/lib/libnccl-tuner-cctune.so" ] || { echo "FAIL: $build/lib/libnccl-tuner-cctune.so is not built"; exit 1; }
mkdir -p "$out"
sweep=$out/sweep

echo "== sweep ($ngpus GPUs)"
"$cctune" sweep --backend nccl --configs auto,ring/simple/32,ring/ll128 -b 1M -e 64M -f 4 -o "$sweep" || {
  echo "FAIL: sweep exited $?"; exit 1; }
echo "== tune"
"$cctune" tune "$sweep/results.json" -o "$sweep" || { echo "FAIL: tune exited $?"; exit 1; }
[ -f "$sweep/profile.json" ] || { echo "FAIL: tune wrote no $sweep/profile.json"; exit 1; }
cat "$sweep/profile.json"
echo "== verify"
"$cctune" verify --profile "$sweep/profile.json" -o "$out/verify"
rc=$?
echo "verify exit status: $rc (0: no size slower, 4: some size slower beyond noise)"
[ -f "$out/verify/verify.json" ] || { echo "FAIL: no $out/verify/verify.json"; exit 1; }
exit $rc
