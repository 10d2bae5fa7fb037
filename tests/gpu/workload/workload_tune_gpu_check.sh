#!/usr/bin/env bash
# Issue #25 end to end with real NCCL: the captured DDP job's workload (2 ranks as 2 NCCL nodes)
# -> sweep --workload (its dry run first) -> tune (by the job's time) -> verify --workload ->
# replay (the captured step under the same profile).
# Run from the repository root:
#   tests/gpu/workload/workload_tune_gpu_check.sh BUILD_DIR OUTPUT_DIR
# With 2 or more GPUs the job's shape is reproduced for real (2 GPUs, --emulate-nodes 2) and the
# profile is tuned and verified: exit = verify's status (0, or 4 when the job is slower per step).
# With one GPU the 2 ranks share it (--test-shared-gpu 2, each its own NCCL host): a functional
# check of the chain. tune refuses such results (checked) and takes them with --functional-check
# (the profile is marked test_mode); where that profile holds no rule (no gain beyond noise) a
# hand-written one stands in. Then, with PyTorch, the captured DDP job itself reruns with the
# profile deployed (its nccl.env) and NCCL's TUNING lines must show every rule applied.
set -u
build=${1:?usage: workload_tune_gpu_check.sh BUILD_DIR OUTPUT_DIR}
out=${2:?usage: workload_tune_gpu_check.sh BUILD_DIR OUTPUT_DIR}
cctune=$build/cctune
caps=tests/fixtures/workload/captures-h100-torch2.11-nccl2.28.9/ddp
export NCCL_NVLS_ENABLE=0   # NVLink SHARP stays off on these machines

command -v nvidia-smi >/dev/null 2>&1 || { echo "SKIP: nvidia-smi not found (no NVIDIA driver on this machine)"; exit 0; }
ngpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
[ "$ngpus" -ge 1 ] || { echo "SKIP: no GPU found"; exit 0; }
[ -x "$cctune" ] || { echo "FAIL: $cctune is not built"; exit 1; }
[ -d "$caps" ] || { echo "FAIL: run from the repository root ($caps not found)"; exit 1; }
mkdir -p "$out"
# Measure with the job's own NCCL: the plugin refuses a profile measured with another version, and
# the job below is PyTorch, whose wheel brings its own libnccl (the nvidia-nccl package).
torch_nccl=$(python3 -c 'import os, nvidia.nccl as n; d = os.path.join(list(n.__path__)[0], "lib"); print(d if os.path.exists(os.path.join(d, "libnccl.so.2")) else "")' 2>/dev/null)
if [ -n "$torch_nccl" ]; then
  export LD_LIBRARY_PATH=$torch_nccl${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  echo "NCCL: PyTorch's, from $torch_nccl"
fi
wl=$out/ddp.workload.json
"$cctune" workload import "$caps/nccl.rank0.log" "$caps/nccl.rank1.log" --steps 4 -o "$wl" || { echo "FAIL: import exited $?"; exit 1; }

if [ "$ngpus" -ge 2 ]; then shape=(--gpus 2 --emulate-nodes 2); else shape=(--gpus 1 --test-shared-gpu 2); fi
echo "== dry run (${shape[*]})"
"$cctune" sweep --workload "$wl" --dry-run "${shape[@]}" || { echo "FAIL: dry run exited $?"; exit 1; }
echo "== sweep --workload"
"$cctune" sweep --backend nccl --workload "$wl" "${shape[@]}" --configs auto,ring/simple,ring/ll128,tree/simple \
  --placement out --max-time 0.3 --no-tune -o "$out/sweep" || { echo "FAIL: sweep exited $?"; exit 1; }
python3 -c 'import json,sys
r = json.load(open(sys.argv[1]))
w = r["meta"]["settings"]["workload"]
print("recorded workload:", w["path"], w["sha256"][:12], [(p["collective"], p["size_bytes"], p["calls_per_step"]) for p in w["points"]])
ok = {(p["collective"], p["dtype"], p["size_bytes"]) for run in r["runs"] for p in run["points"] if p["status"] == "ok"}
want = {(p["collective"], p["dtype"], p["size_bytes"]) for p in w["points"]}
# The sweep measures exactly the job shapes (docs/WORKLOAD.md), never the product of the lists:
# the ok points are those shapes, no more and no fewer.
n_ok = sum(p["status"] == "ok" for run in r["runs"] for p in run["points"])
print(f"{n_ok} ok points at {len(ok)} shapes; job shapes: {len(want)}")
sys.exit(f"FAIL: ok shapes are not the job shapes: missing {sorted(want - ok)}, extra {sorted(ok - want)}" if ok != want else 0)' "$out/sweep/results.json" || exit 1

echo "== tune (weights recorded by the sweep)"
"$cctune" tune "$out/sweep/results.json" -o "$out/sweep" > "$out/tune.txt" 2>&1
rc=$?
cat "$out/tune.txt"
envfile=$out/sweep/nccl.env
profile=$out/sweep/profile.json
if [ "$ngpus" -ge 2 ]; then
  [ "$rc" -eq 0 ] || { echo "FAIL: tune exited $rc"; exit 1; }
  grep -q "collective time per step: NCCL defaults" "$out/tune.txt" || { echo "FAIL: tune printed no per-step line"; exit 1; }
else
  [ "$rc" -eq 2 ] && grep -q "test mode" "$out/tune.txt" || { echo "FAIL: tune of shared-GPU results did not refuse (rc $rc)"; exit 1; }
  echo "== tune --functional-check (the same test-mode results)"
  "$cctune" tune --functional-check "$out/sweep/results.json" -o "$out/sweep" > "$out/tune_functional.txt" 2>&1
  rc=$?
  cat "$out/tune_functional.txt"
  [ "$rc" -eq 0 ] || { echo "FAIL: tune --functional-check exited $rc"; exit 1; }
  grep -q "collective time per step: NCCL defaults" "$out/tune_functional.txt" || { echo "FAIL: tune printed no per-step line"; exit 1; }
  python3 -c 'import json,sys; p = json.load(open(sys.argv[1])); sys.exit(0 if p["provenance"].get("test_mode") == "shared-gpu" else "FAIL: profile not marked test_mode")' "$profile" || exit 1
  grep -q "^# FUNCTIONAL CHECK ONLY" "$envfile" || { echo "FAIL: nccl.env does not say it is a functional check"; exit 1; }
  if python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["rules"] else 1)' "$profile"; then
    echo "tune wrote $(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["rules"]))' "$profile") rule(s)"
  else
    echo "note: tune wrote no rule (no gain beyond noise in the test mode); a hand-written rule stands in for the rest of the chain"
    profile=$out/plumbing.profile.json
    cat > "$profile" <<'JSON'
{"schema": "cctune.profile/1", "provenance": {"nccl_version": "2.28.9", "test_mode": "shared-gpu"}, "env": {},
 "rules": [{"collective": "allreduce", "nranks": 2, "nnodes": 2, "min_bytes": 4194304, "max_bytes": 33554432,
            "algo": "ring", "proto": "ll", "channels": 0}]}
JSON
    envfile=$out/plumbing.nccl.env
    printf 'NCCL_TUNER_PLUGIN=%s\nCCTUNE_PROFILE=%s\n' "$(grep '^NCCL_TUNER_PLUGIN=' "$out/sweep/nccl.env" | cut -d= -f2-)" "$(cd "$(dirname "$profile")" && pwd)/$(basename "$profile")" > "$envfile"
  fi
fi
echo "== verify --workload"
"$cctune" verify --profile "$profile" --workload "$wl" "${shape[@]}" --rounds 6 --max-time 0.3 -o "$out/verify"
rc=$?
echo "verify exit status: $rc (0: the job is not slower per step, 4: slower beyond noise)"
[ -f "$out/verify/verify.json" ] || { echo "FAIL: no $out/verify/verify.json"; exit 1; }
python3 -c 'import json,sys; print("job_step:", json.load(open(sys.argv[1]))["job_step"])' "$out/verify/verify.json" || exit 1
verify_rc=$rc
echo "== replay: the captured step, NCCL's defaults against the same profile"
"$cctune" replay "$wl" --profile "$profile" "${shape[@]}" --rounds 4 -o "$out/replay"
rc=$?
echo "replay exit status: $rc (0: not slower per step, 4: slower beyond noise, 6: undecided: 4 rounds)"
[ "$rc" -eq 0 ] || [ "$rc" -eq 4 ] || [ "$rc" -eq 6 ] || { echo "FAIL: replay exited $rc"; exit 1; }
[ -f "$out/replay/replay.json" ] || { echo "FAIL: no $out/replay/replay.json"; exit 1; }
if python3 -c 'import torch' 2>/dev/null; then
  echo "== the DDP job again, with the profile deployed ($envfile)"
  CCTUNE_JOB_ENV_FILE=$envfile tests/gpu/workload/capture_workloads.sh "$out/rerun" ddp || { echo "FAIL: the job with the profile failed"; exit 1; }
  grep -h "TUNER/Plugin" "$out/rerun/ddp/nccl.rank0.log" | head -n 3
  "$cctune" workload import "$out/rerun/ddp/nccl.rank0.log" "$out/rerun/ddp/nccl.rank1.log" --steps 4 -o "$out/rerun.workload.json" \
    || { echo "FAIL: import of the rerun's log exited $?"; exit 1; }
  python3 tests/gpu/workload/check_rules_applied.py "$profile" "$out/rerun.workload.json" || exit 1
else
  echo "SKIP: the job rerun with the profile (python3 has no PyTorch)"
fi
[ "$ngpus" -ge 2 ] || { echo "shared-GPU test mode: verdicts are plumbing, not performance"; exit 0; }
exit $verify_rc
