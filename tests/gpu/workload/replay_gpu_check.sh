#!/usr/bin/env bash
# `cctune replay` with real NCCL on the recorded DDP capture (tests/fixtures/workload): its
# step (the two bucket AllReduces) issued back to back by 2 ranks sharing one GPU
# (--test-shared-gpu 2, each worker its own NCCL host): under NCCL's defaults alone, then A/B
# against a profile (tree/simple for the step's sizes, applied by the production plugin). Then
# the grouped capture, whose replayed group NCCL's own COLL log must show as one group. The
# shared-GPU mode checks the plumbing: its times are not performance, so a verdict of slower
# (exit 4) is reported, not failed on.
#
# Usage (from the repo root): tests/gpu/workload/replay_gpu_check.sh BUILD_DIR OUTPUT_DIR
#   BUILD_DIR with cctune, the NCCL module and nccl-tuner-cctune built. Exits 0 with "SKIP:
#   reason" without a GPU; 1 on a failure.
set -u
build=${1:?usage: replay_gpu_check.sh BUILD_DIR OUTPUT_DIR}
out=${2:?usage: replay_gpu_check.sh BUILD_DIR OUTPUT_DIR}
cctune=$build/cctune
caps=tests/fixtures/workload/captures-h100-torch2.11-nccl2.28.9/ddp
export NCCL_NVLS_ENABLE=0   # NVLink SHARP stays off on these machines

command -v nvidia-smi >/dev/null 2>&1 || { echo "SKIP: nvidia-smi not found (no NVIDIA driver on this machine)"; exit 0; }
[ "$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')" -ge 1 ] || { echo "SKIP: no GPU found"; exit 0; }
[ -x "$cctune" ] || { echo "FAIL: $cctune is not built"; exit 1; }
[ -d "$caps" ] || { echo "FAIL: run from the repository root ($caps not found)"; exit 1; }
mkdir -p "$out"
fail() { echo "FAIL: $*"; exit 1; }
# The job's own NCCL, PyTorch's (the nvidia-nccl wheel): the profile below names its version, and
# the plugin refuses a profile measured with another one (the system library may be older).
torch_nccl=$(python3 -c 'import os, nvidia.nccl as n; d = os.path.join(list(n.__path__)[0], "lib"); print(d if os.path.exists(os.path.join(d, "libnccl.so.2")) else "")' 2>/dev/null)
[ -n "$torch_nccl" ] || fail "PyTorch's NCCL (python3 -c 'import nvidia.nccl') not found: the profile must name the NCCL that runs"
export LD_LIBRARY_PATH=$torch_nccl${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nccl_version=$(python3 -c 'import torch; print(".".join(map(str, torch.cuda.nccl.version())))') || fail "torch.cuda.nccl.version() failed"
echo "NCCL: PyTorch's $nccl_version, from $torch_nccl"
shared=(--test-shared-gpu 2 --gpus 1)

echo "== import the DDP capture (--steps 4)"
"$cctune" workload import "$caps/nccl.rank0.log" "$caps/nccl.rank1.log" --steps 4 -o "$out/ddp.json" || fail "import exited $?"

echo "== replay under NCCL's defaults"
"$cctune" replay "$out/ddp.json" "${shared[@]}" --rounds 3 -o "$out/defaults"
rc=$?
[ $rc -eq 0 ] || fail "replay (defaults) exited $rc"
python3 - "$out/defaults/replay.json" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
calls = [(c["collective"], c["count"]) for c in d["calls"]]
ok = d["nranks"] == 2 and calls == [("allreduce", 2108426), ("allreduce", 2099200)] and all(t and t > 0 for t in d["default_step_ms"])
print("replay.json:", json.dumps({k: d[k] for k in ("nranks", "default_step_ms", "default_median_ms", "failures")}))
sys.exit(0 if ok else "FAIL: replay.json lacks the 2 calls or a step time per round")
PY

# cctune tune refuses shared-GPU results (their times are not performance), so the profile is
# written here: tree/simple for the step's sizes on this 2-rank, 2-host (shared-GPU) job, which
# the production plugin applies in the profile's rounds.
echo "== a profile for the step's sizes"
mkdir -p "$out/profile"
cat > "$out/profile/profile.json" <<JSON
{"schema": "cctune.profile/1", "provenance": {"nccl_version": "$nccl_version"}, "env": {},
 "rules": [{"collective": "allreduce", "nranks": 2, "nnodes": 2, "min_bytes": 4194304, "max_bytes": 16777216,
            "algo": "tree", "proto": "simple", "channels": 4}]}
JSON

echo "== replay A/B: NCCL's defaults against the profile"
"$cctune" replay "$out/ddp.json" "${shared[@]}" --rounds 4 --profile "$out/profile/profile.json" -o "$out/ab"
rc=$?
echo "replay A/B exit status: $rc (0: not slower, 4: slower beyond noise, 6: undecided; a shared GPU's times are not performance)"
[ $rc -eq 0 ] || [ $rc -eq 4 ] || [ $rc -eq 6 ] || fail "replay A/B exited $rc"
python3 - "$out/ab/replay.json" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
s = d.get("step", {})
print("replay.json:", json.dumps({k: d.get(k) for k in ("default_step_ms", "profile_step_ms")} | {k: s.get(k) for k in ("speedup", "ci_low", "ci_high", "verdict")}))
ok = all(t and t > 0 for t in d["default_step_ms"] + d["profile_step_ms"]) and s.get("verdict") in ("faster", "same", "slower")
if not ok: sys.exit("FAIL: replay.json lacks a step time per round and side, or a verdict")
# NCCL picks ring/simple for these sizes here by itself (2026-11-25: a ring/simple profile read
# "same", 18.02 ms both sides), so only a step time that moves shows the rule was applied.
sys.exit("FAIL: the profile's step time equals the defaults' (verdict same): the plugin did not apply its rule" if s["verdict"] == "same" else 0)
PY
# The grouped capture: its step holds three AllReduces issued inside one ncclGroupStart/End. The
# replay must issue them the same way, which NCCL's own COLL log of the replay shows (the three
# calls share an opCount each time), read back by cctune's own importer.
echo "== replay the grouped capture, NCCL's COLL log on"
grouped=tests/fixtures/workload/captures-h100-torch2.11-nccl2.28.9/grouped
"$cctune" workload import "$grouped/nccl.rank0.log" "$grouped/nccl.rank1.log" --steps 4 -o "$out/grouped.json" || fail "import of the grouped capture exited $?"
mkdir -p "$out/grouped-log"
NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,COLL NCCL_DEBUG_FILE="$out/grouped-log/nccl.%h.%p.log" \
  "$cctune" replay "$out/grouped.json" "${shared[@]}" --rounds 2 -o "$out/grouped" || fail "replay of the grouped step exited $?"
"$cctune" workload import "$out"/grouped-log/nccl.*.log -o "$out/grouped-replayed.json" > /dev/null || fail "import of the replay's own log exited $?"
python3 - "$out/grouped/replay.json" "$out/grouped-replayed.json" <<'PY' || exit 1
import json, sys
step, seen = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
grouped = [(c["count"], c.get("group")) for c in step["calls"]]
print("replay.json calls (count, group):", grouped)
# Collective groups only: the workers' own rank exchange runs as grouped sends and receives.
groups = [[m["count"] for m in g["members"]] + [g["calls"]] for c in seen["communicators"] for g in c.get("groups", [])
          if all(m["kind"] == "collective" for m in g["members"])]
print("collective groups in the replay's own COLL log (member counts, times issued per rank):", groups)
three = [g for g in groups if g[:3] == [131072, 32768, 8192] and len(g) == 4]
if len([c for c in grouped if c[1] is not None]) != 3: sys.exit("FAIL: replay.json does not mark the three grouped calls")
if not three or any(len(g) != 4 or g[:3] != [131072, 32768, 8192] for g in groups):
    sys.exit("FAIL: NCCL did not receive the three AllReduces as one group (or received other groups)")
print("the replay issued the captured group as one group: PASS")
PY
echo "replay_gpu_check: OK"
