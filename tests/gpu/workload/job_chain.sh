#!/usr/bin/env bash
# Issue #35's chain on a real PyTorch job, on the GPUs of one lent host:
#   capture (profiler half) -> workload merge (steps from the profiler's cadence) ->
#   sweep --workload --space default -> tune -> verify --job [-> tune --job]
#   tests/gpu/workload/job_chain.sh BUILD_DIR OUTPUT_DIR MODE [GPUS]
# MODE socket: DDP, the GPUs as 2 emulated nodes (NCCL_HOSTID): socket transport between them.
#      nvlink: DDP on one node.   fsdp2: FSDP2 on one node.
# The sweep and the job use PyTorch's libnccl.
# Settings: STEPS (the job's timed steps, default 20), ROUNDS (verify --job pairs, default 6),
# SPACE (default: default), TUNE_ROUNDS (tune --job's pairs for the winner, default ROUNDS),
# SWEEP_MAX_TIME (seconds a point may measure, default 0.25: the space's 0.5 halved to fit a device call),
# TUNE_JOB=1 also races the candidates on the job (tune --job, ROUNDS pairs for the winner).
# Exits 0 with "SKIP: reason" on fewer than 2 GPUs or without PyTorch; 1 on a failure. The
# verdicts are printed, not judged here: the closing note reports them with their intervals.
set -u
build=${1:?usage: job_chain.sh BUILD_DIR OUTPUT_DIR MODE [GPUS]}
out=${2:?usage: job_chain.sh BUILD_DIR OUTPUT_DIR MODE [GPUS]}
mode=${3:?usage: job_chain.sh BUILD_DIR OUTPUT_DIR MODE [GPUS]}
here=$(cd "$(dirname "$0")" && pwd)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1   # NVLink SHARP stays off
export NCCL_SOCKET_IFNAME=lo PYTHONUNBUFFERED=1
command -v nvidia-smi >/dev/null 2>&1 || { echo "SKIP: nvidia-smi not found"; exit 0; }
gpus=${4:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')}
((gpus >= 2)) || { echo "SKIP: $gpus GPU(s): this chain needs one process per GPU on at least 2"; exit 0; }
python3 -c 'import torch.distributed' 2>/dev/null || { echo "SKIP: python3 has no PyTorch"; exit 0; }
cctune=$(cd "$build" && pwd)/cctune
so=$(cd "$build" && pwd)/lib/libnccl-tuner-cctune.so
[[ -f $so ]] || so=$(cd "$build" && pwd)/libnccl-tuner-cctune.so
[[ -x $cctune && -f $so ]] || { echo "FAIL: $cctune or the tuner plugin is not built"; exit 1; }
fail() { echo "FAIL: $*"; exit 1; }
# The sweep uses PyTorch's own libnccl, as the job does: the plugin refuses a profile measured
# with another NCCL version.
torch_nccl=$(python3 -c 'import os, nvidia.nccl as n; d = os.path.join(list(n.__path__)[0], "lib"); print(d if os.path.exists(os.path.join(d, "libnccl.so.2")) else "")' 2>/dev/null)
[[ -z $torch_nccl ]] || { export LD_LIBRARY_PATH=$torch_nccl${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}; echo "NCCL: PyTorch's, from $torch_nccl"; }
case $mode in
  socket) model=ddp emulate=(--emulate-nodes 2) ;;
  nvlink) model=ddp emulate=() ;;
  fsdp2) model=fsdp2 emulate=() ;;
  *) fail "MODE must be socket, nvlink or fsdp2" ;;
esac
rm -rf "$out"; mkdir -p "$out/cap"; out=$(cd "$out" && pwd)
job=(python3 -m torch.distributed.run --standalone --nproc-per-node "$gpus" "$here/train_job.py" "$model" --steps "${STEPS:-20}" "${emulate[@]}")
# The steps the job runs (its warm-up steps included): verify --job and tune --job are told, so
# their step is the job's whatever its calls look like (equal buckets repeat inside a step).
job_steps=$(( ${STEPS:-20} + 3 ))

echo "== capture: ${job[*]}"
t0=$(date +%s)
NCCL_PROFILER_PLUGIN=$so CCTUNE_WORKLOAD=$out/cap CCTUNE_WORKLOAD_INTERVAL=0 \
  timeout 300 "${job[@]}" --report "$out/cap/own.json" > "$out/cap/job.log" 2>&1 || { tail -20 "$out/cap/job.log"; fail "the job exited $?"; }
echo "capture took $(( $(date +%s) - t0 )) s; the job's own step time: $(cat "$out/cap/own.json")"
"$cctune" workload merge "$out"/cap/workload.*.json -o "$out/workload.json" || fail "workload merge exited $?"
python3 - "$out/workload.json" <<'PY' || exit 1
import json, sys
w = json.load(open(sys.argv[1]))
busiest = max(w["communicators"], key=lambda c: sum(s["calls"] for s in c["calls"]))
print("steps:", w["steps"], "cadence of the busiest communicator:", busiest.get("cadence"))
sys.exit(0 if w["steps"] and busiest.get("cadence") else "FAIL: the capture shows no step cadence")
PY

echo "== sweep --workload --space ${SPACE:-default} ${emulate[*]}"
t0=$(date +%s)
"$cctune" sweep --workload "$out/workload.json" --space "${SPACE:-default}" "${emulate[@]}" --max-time "${SWEEP_MAX_TIME:-0.25}" --no-tune \
  -o "$out/sweep" > "$out/sweep.log" 2>&1 \
  || { tail -30 "$out/sweep.log"; fail "sweep exited $?"; }
echo "sweep took $(( $(date +%s) - t0 )) s"; grep -E '^# (space|group)|groups' "$out/sweep.log" | head -20
echo "== tune"
"$cctune" tune "$out/sweep/results.json" -o "$out/profile" > "$out/tune.log" 2>&1 || { cat "$out/tune.log"; fail "tune exited $?"; }
head -40 "$out/tune.log"
python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); print("profile env:", p["env"], "rules:", len(p["rules"]))' "$out/profile/profile.json"

echo "== verify --job (${ROUNDS:-6} pairs)"
t0=$(date +%s)
"$cctune" verify --job --steps "$job_steps" --profile "$out/profile/profile.json" --rounds "${ROUNDS:-6}" -o "$out/verify" -- "${job[@]}"
rc=$?
echo "verify --job exited $rc after $(( $(date +%s) - t0 )) s"
[[ $rc -eq 0 || $rc -eq 4 ]] || fail "verify --job exited $rc"
if [[ ${TUNE_JOB:-0} == 1 ]]; then
  echo "== tune --job"
  t0=$(date +%s)
  "$cctune" tune "$out/sweep/results.json" --job --steps "$job_steps" --candidates "${CANDIDATES:-2}" --rounds "${TUNE_ROUNDS:-${ROUNDS:-6}}" \
    -o "$out/tune_job" -- "${job[@]}" \
    > "$out/tune_job.log" 2>&1
  rc=$?
  cat "$out/tune_job.log"
  [[ $rc -eq 0 ]] || fail "tune --job exited $rc"
  echo "tune --job took $(( $(date +%s) - t0 )) s"
fi
echo "PASS: job chain $mode on $gpus GPUs"
