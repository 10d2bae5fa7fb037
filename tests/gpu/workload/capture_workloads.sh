#!/usr/bin/env bash
# Captures real NCCL workloads of a small PyTorch job for the workload importers (issue #25):
#   tests/gpu/workload/capture_workloads.sh OUTPUT_DIR [WORKLOAD...]   (default: ddp fsdp alltoall grouped)
# CAPTURE_RANKS processes (default 2). With CAPTURE_GPUS=1 (default) they share GPU 0, each its
# own NCCL host (distinct NCCL_HOSTID, socket transport over loopback): functional captures, never
# performance. With CAPTURE_GPUS=N>1, rank r runs on GPU r % N, and when every rank has its own GPU
# they are one NCCL host: a real job's NVLink (or PCIe) communicator. Per workload, OUTPUT_DIR/<workload>/ gets
# each rank's NCCL log (NCCL_DEBUG=INFO, subsystems INIT,COLL,TUNING: the per-call lines, the
# communicators' "Init COMPLETE" lines and the algorithm chosen), PyTorch's flight-recorder dump
# and the job's own call counts (capture_job.py says what each holds).
# With CCTUNE_PROFILER_SO=/path/libnccl-tuner-cctune.so the same run also loads cctune's profiler
# half (NCCL_PROFILER_PLUGIN, CCTUNE_WORKLOAD=OUTPUT_DIR/<workload>/profiler), and with
# CCTUNE_BIN=/path/cctune each capture is then checked by check_profiler_workload.py.
# With CCTUNE_INSPECTOR_SO=/path/libnccl-profiler-inspector.so (NCCL Inspector, built from
# NVIDIA/nccl ext-profiler/inspector) the run loads Inspector instead and everything it writes
# goes to OUTPUT_DIR/<workload>/inspector/: Inspector's JSON lines in dump/ and the same run's
# NCCL logs, flight-recorder dumps and counts beside them (the fixture layout that
# tests/unit/workload/inspector_import_test.cpp reads). One profiler plugin per process: not
# together with CCTUNE_PROFILER_SO.
# With CCTUNE_JOB_ENV_FILE=/path/nccl.env (what `cctune tune` writes) the job runs with that
# profile deployed: the file is sourced (set -a) before the ranks start.
# Exits 0 with "SKIP: <reason>" without a GPU or without PyTorch.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: capture_workloads.sh OUTPUT_DIR [WORKLOAD...]}
shift
workloads=("$@")
[[ ${#workloads[@]} -gt 0 ]] || workloads=(ddp fsdp alltoall grouped)
command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU ' || { echo "SKIP: no GPU"; exit 0; }
python3 -c 'import torch, torch.distributed' 2>/dev/null || { echo "SKIP: python3 has no PyTorch"; exit 0; }
# NVLink multicast stays off in every process started here.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export NCCL_SOCKET_IFNAME=lo NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,COLL,TUNING
export TORCH_FR_BUFFER_SIZE=20000 TORCH_NCCL_TRACE_BUFFER_SIZE=20000 TORCH_NCCL_ENABLE_TIMING=1 PYTHONUNBUFFERED=1
if [[ -n ${CCTUNE_JOB_ENV_FILE:-} ]]; then
  set -a
  # shellcheck disable=SC1090
  . "$CCTUNE_JOB_ENV_FILE" || { echo "FAIL: cannot source $CCTUNE_JOB_ENV_FILE"; exit 1; }
  set +a
fi
if [[ -n ${CCTUNE_INSPECTOR_SO:-} ]]; then
  [[ -z ${CCTUNE_PROFILER_SO:-} ]] || { echo "FAIL: CCTUNE_INSPECTOR_SO and CCTUNE_PROFILER_SO both set; NCCL loads one profiler plugin"; exit 2; }
  [[ -f $CCTUNE_INSPECTOR_SO ]] || { echo "FAIL: $CCTUNE_INSPECTOR_SO is not a file; build Inspector first (docs/WORKLOAD.md)"; exit 2; }
  CCTUNE_INSPECTOR_SO=$(cd "$(dirname "$CCTUNE_INSPECTOR_SO")" && pwd)/$(basename "$CCTUNE_INSPECTOR_SO")
fi
ranks=${CAPTURE_RANKS:-2} gpus=${CAPTURE_GPUS:-1}
have=$(nvidia-smi -L | grep -c '^GPU ')
((gpus <= have)) || { echo "FAIL: CAPTURE_GPUS=$gpus, but this host has $have GPUs"; exit 2; }
failed=0
for w in "${workloads[@]}"; do
  dir=$out/$w
  [[ -z ${CCTUNE_INSPECTOR_SO:-} ]] || dir=$out/$w/inspector
  rm -rf "$dir"; mkdir -p "$dir"
  profiler_env=()
  if [[ -n ${CCTUNE_INSPECTOR_SO:-} ]]; then
    # Inspector's dump thread sleeps tv_nsec = interval % 1e6 (microseconds read as
    # nanoseconds), so 1000 polls about every microsecond: few calls are sampled away.
    mkdir -p "$dir/dump"
    profiler_env=(NCCL_PROFILER_PLUGIN="$CCTUNE_INSPECTOR_SO" NCCL_INSPECTOR_ENABLE=1 NCCL_INSPECTOR_DUMP_DIR="$dir/dump"
                  NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS=1000)
  elif [[ -n ${CCTUNE_PROFILER_SO:-} ]]; then
    mkdir -p "$dir/profiler"
    # A few steps only: every call timed (the default times one in 100, which such a short job may
    # never reach), so the check can require GPU times.
    profiler_env=(NCCL_PROFILER_PLUGIN="$CCTUNE_PROFILER_SO" CCTUNE_WORKLOAD="$dir/profiler" CCTUNE_WORKLOAD_INTERVAL=0
                  CCTUNE_WORKLOAD_TIMING_EVERY=1)
  fi
  port=$(( 29500 + RANDOM % 2000 ))
  pids=()
  for ((r = 0; r < ranks; r++)); do
    host_env=(CAPTURE_DEVICE=$((r % gpus)))
    ((gpus < ranks)) && host_env+=(NCCL_HOSTID=capture-host$r)
    env "${profiler_env[@]}" "${host_env[@]}" RANK=$r WORLD_SIZE=$ranks MASTER_ADDR=127.0.0.1 MASTER_PORT=$port \
      NCCL_DEBUG_FILE=$dir/nccl.rank$r.log timeout 180 python3 "$here/capture_job.py" "$w" "$dir" \
      > "$dir/stdout.rank$r.txt" 2>&1 &
    pids+=($!)
  done
  rc=0
  for p in "${pids[@]}"; do wait "$p" || rc=$?; done
  if [[ $rc -eq 0 && -s $dir/counts.rank0.json && -s $dir/counts.rank$((ranks - 1)).json ]]; then
    echo "PASS: capture $w ($(grep -c ' opCount ' "$dir/nccl.rank0.log") COLL lines on rank 0)"
  else
    echo "FAIL: capture $w (rc $rc)"; tail -n 20 "$dir"/stdout.rank*.txt; failed=1
  fi
  if [[ -n ${CCTUNE_INSPECTOR_SO:-} ]]; then
    records=$(cat "$dir"/dump/*.log 2>/dev/null | wc -l)
    if [[ $records -gt 0 ]]; then echo "PASS: inspector $w ($records records in $(ls "$dir/dump" | wc -l) files)"
    else echo "FAIL: inspector $w wrote no records (NCCL's log says why: grep -i profiler $dir/nccl.rank0.log)"; grep -ih 'profiler' "$dir"/nccl.rank0.log | head -5; failed=1; fi
    if [[ -n ${CCTUNE_BIN:-} ]]; then
      "$CCTUNE_BIN" workload import "$dir"/dump/*.log -o "$dir/workload.inspector.json" || failed=1
      "$CCTUNE_BIN" workload import "$dir"/nccl.rank*.log -o "$dir/workload.log.json" || failed=1
    fi
  fi
  if [[ -n ${CCTUNE_PROFILER_SO:-} && -n ${CCTUNE_BIN:-} ]]; then
    if [[ $w == switched ]]; then python3 "$here/check_profiler_switch.py" "$CCTUNE_BIN" "$dir" || failed=1
    else python3 "$here/check_profiler_workload.py" "$CCTUNE_BIN" "$here/../../../configs/schema/workload.schema.json" "$dir" || failed=1; fi
  fi
done
exit $failed
