#!/usr/bin/env bash
# Issue #35's chain on a real PyTorch job, on the GPUs of one lent host:
#   capture (profiler half) -> workload merge (steps from the profiler's cadence) ->
#   sweep --workload --space default -> tune -> verify --job [-> tune --job]
#   tests/gpu/workload/job_chain.sh BUILD_DIR OUTPUT_DIR MODE [GPUS]
# MODE socket: DDP, the GPUs as 2 emulated nodes (NCCL_HOSTID): socket transport between them.
#      nvlink: DDP on one node.   fsdp2: FSDP2 on one node.
#      onebox: DDP on 2 hosts that are apart (issue 44): a one-box cluster (tools/onebox-cluster.sh,
#      brought up here and taken down at the end) of 2 hosts x GPUS/2 GPUs, links ONEBOX_LINK
#      (default 25gbit); the job is one torchrun launcher per host (onebox_torchrun.sh, c10d
#      rendezvous on node0), the sweep one supervisor per host under mpirun through the cluster's
#      agent; capture, verify --job and tune --job run that same multi-host job. NCCL_SOCKET_IFNAME=eth0,
#      except with ONEBOX_NICS=2 (or more): then NCCL chooses among the NICs itself, as it does for a
#      user who sets nothing, and ONEBOX_SLOW (e.g. "node0:eth0=5gbit node1:eth0=5gbit") slows some;
#      the space's socket-ifname group offers the fastest NICs as the topology reads them.
# The sweep and the job use PyTorch's libnccl.
# The chain runs as a user runs it (issue 43): the job ends as training scripts do (a metrics
# all-reduce and dist.barrier() after the last step: train_job.py --ending), and nothing tells
# cctune its steps (no --steps, no CCTUNE_WORKLOAD_STEPS) or shortens its sweep (no --max-time).
# Settings: STEPS (the job's timed steps, default 20), ROUNDS (verify --job pairs, default 6),
# OVERLAP (on/off: the sweep's --overlap; default off), SPACE (default: default), TUNE_ROUNDS (tune --job's pairs for the winner, default ROUNDS),
# EVAL_EVERY (the job's evaluation all-reduce every M steps, default 0: none), SWEEP_MAX_TIME
# (only where set: --max-time for the sweep), TUNE_JOB=1 also races the candidates on the job
# (tune --job, ROUNDS pairs for the winner).
# RESUME=1 keeps OUTPUT_DIR and skips each stage whose finished output is already there
# (workload.json, sweep/results.json complete, profile/profile.json, verify/verify_job.json
# complete, tune_job/tune_job.json complete or no-gain): one chain can then span two device
# calls on the same machine (e.g. capture..verify in one, TUNE_JOB=1 in the next). A stage that
# runs makes every later one run again, since their inputs changed.
# Exits 0 with "SKIP: reason" on fewer than 2 GPUs or without PyTorch; 1 on a failure. The
# verdicts are printed, not judged here: the closing note reports them with their intervals.
set -u
build=${1:?usage: job_chain.sh BUILD_DIR OUTPUT_DIR MODE [GPUS]}
out=${2:?usage: job_chain.sh BUILD_DIR OUTPUT_DIR MODE [GPUS]}
mode=${3:?usage: job_chain.sh BUILD_DIR OUTPUT_DIR MODE [GPUS]}
here=$(cd "$(dirname "$0")" && pwd)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1   # NVLink SHARP stays off
export NCCL_SOCKET_IFNAME=lo PYTHONUNBUFFERED=1
if [[ $mode == onebox ]]; then
  export NCCL_SOCKET_IFNAME=eth0   # the hosts' NIC (they have no other but lo)
  ((${ONEBOX_NICS:-1} > 1)) && unset NCCL_SOCKET_IFNAME   # NCCL's own choice among the NICs
fi
command -v nvidia-smi >/dev/null 2>&1 || { echo "SKIP: nvidia-smi not found"; exit 0; }
gpus=${4:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')}
((gpus >= 2)) || [[ $mode == onebox && $gpus == 1 ]] || { echo "SKIP: $gpus GPU(s): this chain needs one process per GPU on at least 2 (onebox: 1 shared)"; exit 0; }
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
# The sweep's --overlap load is cuBLAS (docs/TUNING.md "Collectives beside compute"): PyTorch's own
# where the toolkit's is not on the loader's path.
torch_cublas=$(python3 -c 'import os, glob, nvidia.cublas as c; d = os.path.join(list(c.__path__)[0], "lib"); print(d if glob.glob(os.path.join(d, "libcublas.so.*")) else "")' 2>/dev/null)
[[ -z $torch_cublas ]] || { export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$torch_cublas; echo "cuBLAS: PyTorch's, from $torch_cublas (after the loader path)"; }
case $mode in
  socket) model=ddp emulate=(--emulate-nodes 2) ;;
  nvlink) model=ddp emulate=() ;;
  fsdp2) model=fsdp2 emulate=() ;;
  onebox) model=ddp emulate=() ;;
  *) fail "MODE must be socket, nvlink, fsdp2 or onebox" ;;
esac
[[ ${RESUME:-0} == 1 ]] || rm -rf "$out"
mkdir -p "$out/cap"; out=$(cd "$out" && pwd)
# stage_done FILE: RESUME=1, no earlier stage ran again, and FILE is there, finished when it has
# a status (a sweep's meta.status, verify's and tune --job's status): a run killed at the call's
# limit leaves an "interrupted" file that must not be taken for a result.
rerun=0
stage_done() {
  [[ ${RESUME:-0} == 1 && $rerun == 0 && -f $1 ]] || { rerun=1; return 1; }
  python3 - "$1" <<'PY' && return 0
import json, sys
d = json.load(open(sys.argv[1]))
status = d.get("meta", d).get("status", "complete")
sys.exit(0 if status in ("complete", "no-gain", "no-change", "undecided") else 1)
PY
  rerun=1; return 1
}
job=(python3 -m torch.distributed.run --standalone --nproc-per-node "$gpus" "$here/train_job.py" "$model" --steps "${STEPS:-20}"
     --eval-every "${EVAL_EVERY:-0}" "${emulate[@]}")
max_time=(); [[ -n ${SWEEP_MAX_TIME:-} ]] && max_time=(--max-time "$SWEEP_MAX_TIME")
# OVERLAP=on|off: the sweep's --overlap (docs/TUNING.md "Collectives beside compute"); unset, off.
overlap=(); [[ -n ${OVERLAP:-} ]] && overlap=(--overlap "$OVERLAP")
# sweep_launch: how the sweep starts; one process (it owns every GPU) except on the one-box hosts.
sweep_launch=()
if [[ $mode == onebox ]]; then
  export ONEBOX_NAME=${ONEBOX_NAME:-jobchain$$} ONEBOX_NPROC=$((gpus / 2)) OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  if ((gpus == 1)); then  # a one-GPU machine: the hosts share it (test mode: functional, the link is real)
    export ONEBOX_SHARE_GPUS=1 ONEBOX_NPROC=1
    echo "TEST MODE: 1 GPU for 2 hosts: they share it; step times are functional, not a GPU's performance"
  fi
  ((gpus == 1 || gpus % 2 == 0)) || fail "onebox: $gpus GPUs do not split over 2 hosts"
  repo=$(cd "$here/../../.." && pwd)
  onebox=("$repo/tools/onebox-cluster.sh")
  trap '"${onebox[@]}" down >/dev/null 2>&1' EXIT
  ONEBOX_NICS=${ONEBOX_NICS:-1} "$repo/tests/gpu/onebox_up.sh" 2 "$ONEBOX_NPROC" "${ONEBOX_LINK:-25gbit}" "" \
    || fail "the one-box cluster did not come up"
  job=("$here/onebox_torchrun.sh" "$here/train_job.py" "$model" --steps "${STEPS:-20}" --eval-every "${EVAL_EVERY:-0}")
  # One supervisor per host owns its host's GPUs; what the ranks need crosses with -x, as over ssh.
  sweep_launch=("${onebox[@]}" run node0 -- mpirun --host node0:1,node1:1 --bind-to none -x NCCL_NVLS_ENABLE
                -x TORCH_SYMM_MEM_DISABLE_MULTICAST -x NVSHMEM_DISABLE_NVLS -x PYTHONUNBUFFERED)
  [[ -n ${NCCL_SOCKET_IFNAME:-} ]] && sweep_launch+=(-x NCCL_SOCKET_IFNAME)
  [[ -n ${LD_LIBRARY_PATH:-} ]] && sweep_launch+=(-x LD_LIBRARY_PATH)
  echo "onebox: 2 hosts x $ONEBOX_NPROC GPU(s), cluster $ONEBOX_NAME; the job: ${job[*]}"
fi

echo "== capture: ${job[*]}"
if stage_done "$out/workload.json"; then
  echo "resumed: the capture and $out/workload.json are from the earlier call; the job's own step time: $(cat "$out/cap/own.json")"
else
  rm -rf "$out/cap" "$out/workload.json"; mkdir -p "$out/cap"
  t0=$(date +%s)
  # Step times kept (CCTUNE_WORKLOAD_STEP_TIMES=1, as docs/WORKLOAD.md "Capture" says): tune holds
  # a saving against the job's step.
  NCCL_PROFILER_PLUGIN=$so CCTUNE_WORKLOAD=$out/cap CCTUNE_WORKLOAD_INTERVAL=0 CCTUNE_WORKLOAD_STEP_TIMES=1 \
    timeout 300 "${job[@]}" --report "$out/cap/own.json" > "$out/cap/job.log" 2>&1 || { rc=$?; tail -20 "$out/cap/job.log"; fail "the job exited $rc"; }
  echo "capture took $(( $(date +%s) - t0 )) s; the job's own step time: $(cat "$out/cap/own.json")"
  "$cctune" workload merge "$out"/cap/workload.*.json -o "$out/workload.json" || fail "workload merge exited $?"
fi
python3 - "$out/workload.json" <<'PY' || exit 1
import json, sys
w = json.load(open(sys.argv[1]))
busiest = max(w["communicators"], key=lambda c: sum(s["calls"] for s in c["calls"]))
print("steps:", w["steps"], "cadence of the busiest communicator:", busiest.get("cadence"))
sys.exit(0 if w["steps"] and busiest.get("cadence") else "FAIL: the capture shows no step cadence")
PY

echo "== sweep --workload --space ${SPACE:-default} ${emulate[*]}"
if stage_done "$out/sweep/results.json"; then
  echo "resumed: $out/sweep/results.json is complete"
else
  # A workload sweep through NCCL cannot --resume: one left unfinished is measured again whole.
  rm -rf "$out/sweep"
  t0=$(date +%s)
  "${sweep_launch[@]}" "$cctune" sweep --workload "$out/workload.json" --space "${SPACE:-default}" "${emulate[@]}" "${max_time[@]}" "${overlap[@]}" --no-tune \
    -o "$out/sweep" > "$out/sweep.log" 2>&1 \
    || { rc=$?; tail -30 "$out/sweep.log"; fail "sweep exited $rc"; }
  echo "sweep took $(( $(date +%s) - t0 )) s"
fi
# Each group's header and mean bus bandwidth (the sweep prints no line naming the space or a count).
grep -E '^# [a-z_]+ +backend |^# Avg bus bandwidth|^# overlap ' "$out/sweep.log" | head -40
echo "== tune"
if stage_done "$out/profile/profile.json"; then
  echo "resumed: $out/profile/profile.json is from the earlier call"
else
  rm -rf "$out/profile"
  "$cctune" tune "$out/sweep/results.json" -o "$out/profile" > "$out/tune.log" 2>&1 || { cat "$out/tune.log"; fail "tune exited $?"; }
fi
head -40 "$out/tune.log"
python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); print("profile env:", p["env"], "rules:", len(p["rules"]))' "$out/profile/profile.json"

echo "== verify --job (${ROUNDS:-6} pairs)"
if stage_done "$out/verify/verify_job.json"; then
  echo "resumed: $out/verify/verify_job.json is complete"
  python3 -c 'import json,sys; print("verify --job (earlier call):", json.load(open(sys.argv[1]))["job_step"])' "$out/verify/verify_job.json"
else
  rm -rf "$out/verify"   # the job race refuses a folder holding earlier runs
  t0=$(date +%s)
  "$cctune" verify --job --profile "$out/profile/profile.json" --rounds "${ROUNDS:-6}" -o "$out/verify" -- "${job[@]}" \
    2>&1 | tee "$out/verify.log"
  rc=${PIPESTATUS[0]}
  echo "verify --job exited $rc after $(( $(date +%s) - t0 )) s"
  [[ $rc -eq 0 || $rc -eq 4 || $rc -eq 6 ]] || fail "verify --job exited $rc"
fi
if [[ ${TUNE_JOB:-0} == 1 ]] && stage_done "$out/tune_job/tune_job.json"; then
  echo "== tune --job: resumed, $out/tune_job/tune_job.json is finished"
  cat "$out/tune_job.log"
elif [[ ${TUNE_JOB:-0} == 1 ]]; then
  echo "== tune --job"
  rm -rf "$out/tune_job"
  t0=$(date +%s)
  "$cctune" tune "$out/sweep/results.json" --job --candidates "${CANDIDATES:-2}" --rounds "${TUNE_ROUNDS:-${ROUNDS:-6}}" \
    -o "$out/tune_job" -- "${job[@]}" \
    > "$out/tune_job.log" 2>&1
  rc=$?
  cat "$out/tune_job.log"
  [[ $rc -eq 0 || $rc -eq 6 ]] || fail "tune --job exited $rc"
  echo "tune --job took $(( $(date +%s) - t0 )) s"
fi
echo "PASS: job chain $mode on $gpus GPUs"
