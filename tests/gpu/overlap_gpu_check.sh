#!/usr/bin/env bash
# `sweep --overlap` on a GPU (docs/TUNING.md "Collectives beside compute"):
#   tests/gpu/overlap_gpu_check.sh BUNDLE_DIR OUTPUT_DIR
# One `cctune sweep --backend nccl --overlap` with two groups, NCCL's defaults and channels-32
# (NCCL_MIN_CTAS=NCCL_MAX_CTAS=32), allreduce 64 KiB to 64 MiB, then `cctune tune`. With one GPU
# the two workers share it (--test-shared-gpu 2: functional only, socket transport); with more,
# one worker per GPU. Checks:
#   - every point is ok and carries "overlap" with rounds >= 1 at the largest size (the window
#     covers several GEMMs there), a slowdown in (0.5, 100] and compute_us = batch_us x (1 - 1/s);
#   - the worker's cuBLAS GEMM was found (the sweep did not fail on libcublas);
#   - with 2 GPUs or more: tune's text says the scores are collective + compute (a shared-GPU
#     run is a test and never tuned).
# Printed: per size, each group's batch_us, compute slowdown and compute_us.
# Exits 0 with "SKIP: reason" without a GPU or without libcublas; 1 on a failure. NVLS stays off.
set -u
NAME=overlap
. "$(dirname "$0")/sweep_check_prologue.sh"
timeout 420 "$cctune" sweep --backend nccl "${workers[@]}" --overlap --collectives allreduce -b 64K -e 64M -f 16 \
  -n 20 -w 5 --max-time 0.3 --env-group channels-32:NCCL_MIN_CTAS=32,NCCL_MAX_CTAS=32 --no-tune -o "$dir" \
  > "$out/overlap_sweep.log" 2>&1
rc=$?
tail -n 5 "$out/overlap_sweep.log"
if ((rc != 0)) && grep -q "libcublas" "$out/overlap_sweep.log"; then
  echo "SKIP: libcublas could not be loaded here: $(grep -m1 libcublas "$out/overlap_sweep.log")"
  exit 0
fi
((rc == 0)) || { echo "FAIL: the sweep exited $rc (see $out/overlap_sweep.log)"; exit 1; }
# A shared-GPU run is a test, never tuned (docs/NCCL_BACKEND.md): tune only with a GPU per worker.
if ((ngpu >= 2)); then
  "$cctune" tune "$dir/results.json" -o "$dir/tuned" > "$out/overlap_tune.log" 2>&1 \
    || { cat "$out/overlap_tune.log"; echo "FAIL: tune exited $?"; exit 1; }
  head -n 20 "$out/overlap_tune.log"
else
  echo "(one GPU: a shared-GPU test run is never tuned; tune's text is checked on 2 GPUs or more)" > "$out/overlap_tune.log"
fi

python3 - "$dir" "$out/overlap_tune.log" <<'PY'
import json, sys
res = json.load(open(sys.argv[1] + "/results.json"))
tune = open(sys.argv[2]).read()
problems = []
if res["meta"]["settings"]["nccl"].get("overlap") is not True:
    problems.append("meta.settings.nccl.overlap is not true")
largest = max(p["size_bytes"] for r in res["runs"] for p in r["points"])
for run in res["runs"]:
    if run.get("status") != "ok":
        problems.append(f"group {run['group']}: {run.get('status')} {run.get('reason')}")
    for p in run["points"]:
        o = p.get("overlap")
        where = f"{run['group']} {p['size_bytes']} B {p['config']}"
        if p["status"] != "ok" or not o:
            problems.append(f"{where}: status {p['status']}, overlap {o}")
            continue
        s = o["compute_slowdown"]
        if not (0.5 < s <= 100) or abs(o["compute_us"] - p["batch_us"] * (1 - 1 / s)) > 1e-6 * max(1, p["batch_us"]):
            problems.append(f"{where}: overlap {o} against batch_us {p['batch_us']}")
        if p["size_bytes"] == largest and o["rounds"] < 1:
            problems.append(f"{where}: no round told the compute's slowdown at the largest size")
        if p["config"]["algo"] == "auto":
            print(f"{run['group']:12} {p['size_bytes']:>10} B  batch {p['batch_us']:9.1f} us  compute x{s:.3f}  "
                  f"+{o['compute_us']:.1f} us  rounds {o['rounds']}")
if not tune.startswith("(one GPU") and "measured beside compute (--overlap): scored by collective + compute" not in tune:
    problems.append("tune's text does not say the scores are collective + compute")
print("\n".join(f"FAIL: {p}" for p in problems) or "PASS: every point ran beside the cuBLAS load and tune scored the sum")
sys.exit(1 if problems else 0)
PY
