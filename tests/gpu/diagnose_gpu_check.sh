#!/usr/bin/env bash
# cctune diagnose through real NCCL on a one-GPU machine: 4 MPI ranks in the shared-GPU test
# mode (--test-shared-gpu 1: every rank an emulated node whose worker has its own NCCL_HOSTID,
# all on GPU 0, NCCL's socket transport). Functional check, no verdict expected: the command
# must complete every stage it plans (pair probe, pair NCCL in 3 rounds, all nodes) and write a
# valid diagnosis.json (cctune.diagnosis/1, 4 nodes, 6 pairs with figures) and report.html.
#   tests/gpu/diagnose_gpu_check.sh BUILD_DIR OUT_DIR
# Prints "PASS: diagnose ..." and exits 0; "SKIP: reason" and exits 0 without a GPU.
export NCCL_NVLS_ENABLE=0  # never NVLS/multicast on the lent machines
set -uo pipefail
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
build=$(cd "${1:?usage: diagnose_gpu_check.sh BUILD_DIR OUT_DIR}" && pwd)
mkdir -p "${2:?usage: diagnose_gpu_check.sh BUILD_DIR OUT_DIR}"
out=$(cd "$2" && pwd)/diagnose_gpu_check
rm -rf "$out"; mkdir -p "$out"
command -v nvidia-smi >/dev/null 2>&1 || { echo "SKIP: nvidia-smi not found"; exit 0; }
[[ $(nvidia-smi -L 2>/dev/null | grep -c '^GPU ') -ge 1 ]] || { echo "SKIP: no GPU found"; exit 0; }
[[ -f "$build/libcctune-nccl.so" ]] || { echo "FAIL: $build/libcctune-nccl.so not found"; exit 1; }

# The pair probe between emulated nodes of one host runs over loopback (no network here).
timeout 400 mpirun --oversubscribe -np 4 -x NCCL_NVLS_ENABLE -x CUDA_VISIBLE_DEVICES=0 "$build/cctune" diagnose \
  --backend nccl --test-shared-gpu 1 --probe tcp --socket-ifname =lo --latency-size 8 --bandwidth-size 4M \
  --max-time 0.5 -o "$out/run" > "$out/stdout.txt" 2> "$out/stderr.txt"
rc=$?
cat "$out/stdout.txt"
tail -n 20 "$out/stderr.txt"
# 0 (no suspects) or 5 (suspects): the figures of the test mode are not performance.
[[ $rc -eq 0 || $rc -eq 5 ]] || { echo "FAIL: cctune diagnose exited $rc"; exit 1; }
python3 - "$out/run" <<'PY' || exit 1
import json, os, sys
run = sys.argv[1]
d = json.load(open(os.path.join(run, "diagnosis.json")))
assert d["schema"] == "cctune.diagnosis/1", d["schema"]
c = d["cluster"]
assert c["backend"] == "nccl" and c["nodes"] == 4 and c["test_mode"] == "shared-gpu", c
ran = {s["name"]: s["rounds"] for s in d["stages"]}
assert ran == {"intra-node": 0, "pair probe": 3, "pair collective": 3, "all nodes": 1}, ran
pairs = d["figures"]["pairs"]
assert len(pairs) == 6 and all(p["busbw_GBps"] for p in pairs), pairs
assert d["figures"]["all_nodes"]["busbw_GBps"], d["figures"]["all_nodes"]
probed = sum(1 for p in pairs if p["probe_GBps"])
results = json.load(open(os.path.join(run, "pairs.json")))
assert len(results["runs"]) == 6 and all(r["backend"] == "nccl" and r["status"] == "ok" for r in results["runs"])
assert 'id="diagnosis"' in open(os.path.join(run, "report.html")).read()
print(f"PASS: diagnose through NCCL on 4 emulated nodes: 6 pairs (busbw {min(p['busbw_GBps'] for p in pairs):.2f}.."
      f"{max(p['busbw_GBps'] for p in pairs):.2f} GB/s, {probed} probed), all nodes "
      f"{d['figures']['all_nodes']['busbw_GBps']:.2f} GB/s; verdict: {d['verdict']}")
PY
