#!/usr/bin/env bash
# The workload chain on a multi-GPU host (issue #34): a real PyTorch job on N GPUs, one process
# each on its own GPU (one NCCL host: NVLink where the GPUs have it), captured by cctune's
# profiler half and NCCL's COLL log in the same run. The profiler files must agree with the log
# and the job's own counts, shape by shape, with no group the job did not issue
# (check_profiler_workload.py); then the profiler files are imported with the job's step count,
# the step planned from them must be the one planned from the COLL log, and it is replayed on
# the same N GPUs under NCCL's defaults.
#   tests/gpu/workload/multi_gpu_chain.sh BUILD_DIR OUTPUT_DIR [GPUS]   (GPUS default: all)
# Exits 0 with "SKIP: reason" on fewer than 2 GPUs or without PyTorch; 1 on a failure.
set -u
build=${1:?usage: multi_gpu_chain.sh BUILD_DIR OUTPUT_DIR [GPUS]}
out=${2:?usage: multi_gpu_chain.sh BUILD_DIR OUTPUT_DIR [GPUS]}
here=$(cd "$(dirname "$0")" && pwd)
export NCCL_NVLS_ENABLE=0   # NVLink SHARP stays off on these machines
command -v nvidia-smi >/dev/null 2>&1 || { echo "SKIP: nvidia-smi not found"; exit 0; }
gpus=${3:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')}
((gpus >= 2)) || { echo "SKIP: $gpus GPU(s): this chain needs one process per GPU on at least 2"; exit 0; }
cctune=$build/cctune
so=$build/lib/libnccl-tuner-cctune.so
[[ -f $so ]] || so=$build/libnccl-tuner-cctune.so
[[ -x $cctune && -f $so ]] || { echo "FAIL: $cctune or the tuner plugin is not built"; exit 1; }
mkdir -p "$out"
fail() { echo "FAIL: $*"; exit 1; }

echo "== capture ddp and grouped on $gpus GPUs (profiler half and COLL log, one run)"
CAPTURE_RANKS=$gpus CAPTURE_GPUS=$gpus CCTUNE_PROFILER_SO=$so CCTUNE_BIN=$cctune \
  "$here/capture_workloads.sh" "$out/cap" ddp grouped || fail "capture or its check failed"
for w in ddp grouped; do
  grep -q 'Init COMPLETE' "$out/cap/$w/nccl.rank0.log" || fail "$w: no Init COMPLETE line in rank 0's log"
  # One NCCL host: the ranks talk over NVLink or PCIe (P2P/CUMEM or SHM), never the socket transport.
  grep -qE 'via (P2P|SHM)' "$out/cap/$w/nccl.rank0.log" || fail "$w: rank 0's log shows no P2P/SHM channel"
done

steps=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["steps"])' "$out/cap/ddp/counts.rank0.json")
echo "== import the DDP profiler files and COLL logs (--steps $steps)"
"$cctune" workload import "$out"/cap/ddp/profiler/workload.*.json --steps "$steps" -o "$out/ddp.profiler.json" || fail "profiler import exited $?"
"$cctune" workload import "$out"/cap/ddp/nccl.rank*.log --steps "$steps" -o "$out/ddp.log.json" || fail "log import exited $?"
"$cctune" replay "$out/ddp.profiler.json" --dry-run --ranks "$gpus" > "$out/step.profiler.txt" || fail "replay --dry-run of the profiler capture"
"$cctune" replay "$out/ddp.log.json" --dry-run --ranks "$gpus" > "$out/step.log.txt" || fail "replay --dry-run of the COLL log"
# The same calls each step. The profiler's events carry no reduction op and its files no call
# order (first_call), so the op word and the order are left out of the comparison.
step_calls() { grep -E '^ +[0-9]+ x ' "$1" | sed -E 's/ (sum|prod|max|min|avg)( |$)/\2/' | sort; }
diff <(step_calls "$out/step.profiler.txt") <(step_calls "$out/step.log.txt") || fail "the step planned from the profiler files differs from the COLL log's"
[[ -n $(step_calls "$out/step.profiler.txt") ]] || fail "no call in the step planned from the profiler files"
cat "$out/step.profiler.txt"

echo "== replay the profiler capture's step on $gpus GPUs"
"$cctune" replay "$out/ddp.profiler.json" --gpus "$gpus" --rounds 3 -o "$out/replay" || fail "replay exited $?"
python3 - "$out/replay/replay.json" "$gpus" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
ok = d["nranks"] == int(sys.argv[2]) and d["calls"] and all(t and t > 0 for t in d["default_step_ms"]) and not d["failures"]
print("replay.json:", json.dumps({k: d[k] for k in ("nranks", "default_step_ms", "default_median_ms", "failures")}))
sys.exit(0 if ok else "FAIL: replay.json lacks the step's calls or a step time per round")
PY
echo "PASS: the $gpus-GPU job's profiler capture agrees with its COLL log and replays"
