#!/usr/bin/env bash
# What the plugin's profiler half costs a job: the reference loop (cctune-ref-collectives, one
# process, nccl-tests' method) over AllReduce 8 B-64 MiB with the profiler half loaded and
# recording (NCCL_PROFILER_PLUGIN=<libnccl-tuner-cctune.so>, CCTUNE_WORKLOAD=<dir>) against the
# same loop without it, RUNS interleaved rounds of each side (ABBA). Per size the median of
# each side, their difference with a 95 % bootstrap interval, the paired median (each round's
# on minus off) and a verdict: PASS when the paired median is within max(1 %, 0.3 us) of "off"
# (overhead_table.py says why the paired one). Every "on" run must leave a workload file that recorded the
# loop's AllReduce calls, or the bench fails (an idle profiler costs nothing and proves nothing).
#   bench/profiler_overhead.sh BUILD_DIR [OUTPUT_DIR]     (OUTPUT_DIR defaults to $OUT, else a temp dir)
# NCCL runs a one-rank communicator on a path that emits no profiler events. With two GPUs or
# more (one process drives them all, like nccl-tests -g) the "on" runs record every call. With
# one GPU they record nothing: the table then compares a loaded, idle profiler with none, and
# what recording costs comes from bench/profiler_events_bench, which drives the same library
# with NCCL's events for one call on this host's CPU. That run's launch-thread time per
# collective must stay under 0.3 us as well.
# Env: GPUS (default: every visible GPU), RUNS (default 9), SIZES (bytes, comma-separated; default 8 B to 64 MiB by 4x and 64 MiB),
#      ITERS (-n, 20), WARMUP (-w, 5), REF_BATCHES (-r, 25), PIN_CPUS (taskset list, default none),
#      EVENTS (CCTUNE_WORKLOAD_EVENTS for the "on" runs: timing (default) or calls),
#      TIMING_EVERY (CCTUNE_WORKLOAD_TIMING_EVERY for the "on" runs; unset: the plugin's default),
#      TAG (the logs go to OUTPUT_DIR/profiler_overhead_TAG, so several settings can run side by side),
#      METHOD: switch (default: one process, one set of communicators, per size RUNS rounds whose
#      timed batches alternate between the sides, recording switched on and off through the
#      plugin's cctune_profiler_events()),
#      inprocess (one process, communicators and plugin made anew each round) or processes (a
#      process per run and side, "off" without the plugin at all),
#      PROCS (switch only; default 1: one process drives every GPU, each operation a group of one
#      call per GPU, like nccl-tests -g N): with PROCS=N >= 2, N processes drive a GPU each (like
#      nccl-tests under mpirun with -g 1, and a framework's usual shape), each operation one call
#      per process, each process switching its own plugin at the same batches.
#      PLUGIN (default BUILD/lib/libnccl-tuner-cctune.so): another build of the library, to set
#      two builds side by side on one machine.
#      FLOOR=1 (switch only): NCCL's own share instead, the same runs with
#      BUILD/bench/libcctune-profiler-floor.so, a profiler that asks NCCL for the events the
#      plugin asks for on an unfollowed call and does nothing with them; nothing is recorded, so
#      no workload file is checked. The real plugin's figure minus this one is the plugin's code.
# Exit: 0 when every size passes, 1 otherwise; 0 with "SKIP: <reason>" without a GPU.
set -euo pipefail
export NCCL_NVLS_ENABLE=0
unset NCCL_PROFILER_PLUGIN NCCL_TUNER_PLUGIN CCTUNE_WORKLOAD CCTUNE_PROFILE

BUILD=${1:?usage: profiler_overhead.sh BUILD_DIR [OUTPUT_DIR]}
OUTDIR=${2:-${OUT:-}}
[[ -n "$OUTDIR" ]] || OUTDIR=$(mktemp -d /tmp/cctune-profiler-overhead.XXXXXX)
OUTDIR=$OUTDIR/profiler_overhead${TAG:+_$TAG}
rm -rf "$OUTDIR" && mkdir -p "$OUTDIR"
RUNS=${RUNS:-9}
SIZES=${SIZES:-8,32,128,512,2048,8192,32768,131072,524288,2097152,8388608,33554432,67108864}
ITERS=${ITERS:-20}
WARMUP=${WARMUP:-5}
REF_BATCHES=${REF_BATCHES:-25}
EVENTS=${EVENTS:-timing}
METHOD=${METHOD:-switch}
PROCS=${PROCS:-1}
PIN_CPUS=${PIN_CPUS:-none}
PIN=()
[[ "$PIN_CPUS" == none ]] || PIN=(taskset -c "$PIN_CPUS")

if ! command -v nvidia-smi >/dev/null 2>&1; then echo "SKIP: nvidia-smi not found"; exit 0; fi
NGPU=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
if [[ "$NGPU" -lt 1 ]]; then echo "SKIP: nvidia-smi finds no GPU"; exit 0; fi
GPUS=${GPUS:-$NGPU}
if [[ $PROCS -gt 1 ]]; then
  [[ $METHOD == switch ]] || { echo "FAIL: PROCS=$PROCS needs METHOD=switch"; exit 1; }
  [[ $PROCS -le $NGPU ]] || { echo "FAIL: PROCS=$PROCS but $NGPU GPU(s): one process per GPU"; exit 1; }
  GPUS=$PROCS
fi
REF=$BUILD/cctune-ref-collectives
FLOOR=${FLOOR:-0}
if [[ $FLOOR == 1 ]]; then
  [[ $METHOD == switch ]] || { echo "FAIL: FLOOR=1 needs METHOD=switch"; exit 1; }
  PLUGIN=${PLUGIN:-$BUILD/bench/libcctune-profiler-floor.so}
fi
PLUGIN=${PLUGIN:-$BUILD/lib/libnccl-tuner-cctune.so}
# An absolute path: NCCL resolves a bare or relative name through the loader's search path.
if dir=$(cd "$(dirname "$PLUGIN")" 2>/dev/null && pwd); then PLUGIN=$dir/$(basename "$PLUGIN"); fi
for f in "$REF" "$PLUGIN"; do
  [[ -e "$f" ]] || { echo "FAIL: $f not found (build it with CUDA, or bundle it with tools/gpu-bundle.sh)"; exit 1; }
done

echo "== AllReduce on $GPUS GPU(s) from $PROCS process(es), $RUNS interleaved runs of each side, -w $WARMUP -n $ITERS -r $REF_BATCHES, events $EVENTS, timing every ${TIMING_EVERY:-default} calls, CPUs $PIN_CPUS, profiler $PLUGIN; logs in $OUTDIR"
[[ $FLOOR == 1 ]] && echo "   FLOOR: NCCL's own share (a profiler asking for the same API events and doing nothing with them)"
start=$SECONDS
on_env=(NCCL_PROFILER_PLUGIN="$PLUGIN" CCTUNE_WORKLOAD_EVENTS="$EVENTS" CCTUNE_WORKLOAD_INTERVAL=0)
[[ -z ${TIMING_EVERY:-} ]] || on_env+=(CCTUNE_WORKLOAD_TIMING_EVERY="$TIMING_EVERY")
# An A/B run's CSV (side,round,...) as the per-run files overhead_table.py reads.
split_ab_rounds() {
  for run in $(seq 1 "$RUNS"); do
    for side in off on; do
      { echo "size_bytes,time_us,algbw_GBps,busbw_GBps"; grep "^$side,$run," "$OUTDIR/ab.csv" | cut -d, -f3-; } >"$OUTDIR/$side.$run.csv"
    done
  done
}

if [[ $METHOD == switch ]]; then
  # The closest comparison: the same communicators, buffers and plugin on both sides, batch by
  # batch; "off" asks NCCL for no events at all (no interval: nothing polls the control file),
  # "on" records as a job would. What loading costs is the separate-process method's figure.
  mkdir -p "$OUTDIR/workload.ab"
  # One process per GPU: ranks 1.. in the background, rank 0 (the one that prints) in front.
  procs=()
  peers=()
  trap '[[ ${#peers[@]} -eq 0 ]] || kill "${peers[@]}" 2>/dev/null || true' EXIT  # rank 0 failed: no rank waits out its timeout
  if [[ $PROCS -gt 1 ]]; then
    rm -f "$OUTDIR/nccl.id"
    procs=(--rank 0 --nranks "$PROCS" --id-file "$OUTDIR/nccl.id")
    for r in $(seq 1 $((PROCS - 1))); do
      # shellcheck disable=SC2046
      env "${on_env[@]}" CCTUNE_WORKLOAD="$OUTDIR/workload.ab" NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT NCCL_DEBUG_FILE="$OUTDIR/ab.nccl.$r.log" \
        timeout 900 "${PIN[@]}" "$REF" --coll allreduce --rank "$r" --nranks "$PROCS" --id-file "$OUTDIR/nccl.id" -w "$WARMUP" -n "$ITERS" \
        -r "$REF_BATCHES" --ab-events "$EVENTS" --ab-rounds "$RUNS" $(tr ',' ' ' <<<"$SIZES") >/dev/null 2>"$OUTDIR/ab.$r.stderr" &
      peers+=($!)
    done
  fi
  # shellcheck disable=SC2046
  env "${on_env[@]}" CCTUNE_WORKLOAD="$OUTDIR/workload.ab" NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT NCCL_DEBUG_FILE="$OUTDIR/ab.nccl.log" \
    timeout 900 "${PIN[@]}" "$REF" --coll allreduce --gpus "$GPUS" "${procs[@]}" -w "$WARMUP" -n "$ITERS" -r "$REF_BATCHES" --ab-events "$EVENTS" \
    --ab-rounds "$RUNS" $(tr ',' ' ' <<<"$SIZES") >"$OUTDIR/ab.csv" 2>"$OUTDIR/ab.stderr" \
    || { echo "FAIL: reference loop (switch A/B) failed:"; tail -n 5 "$OUTDIR/ab.stderr"; exit 1; }
  for k in "${!peers[@]}"; do
    wait "${peers[$k]}" || { echo "FAIL: reference loop (switch A/B), rank $((k + 1)), failed:"; tail -n 5 "$OUTDIR/ab.$((k + 1)).stderr"; exit 1; }
  done
  split_ab_rounds
  if [[ $FLOOR == 1 ]]; then
    echo "   $RUNS rounds of each side on one set of communicators ($((SECONDS - start)) s); floor profiler loaded: $(cat "$OUTDIR"/ab.nccl*.log | grep -c 'loaded external profiler plugin') (want $PROCS)"
  else
    echo "   $RUNS rounds of each side on one set of communicators ($((SECONDS - start)) s); plugin recording: $(cat "$OUTDIR"/ab.nccl*.log | grep -c 'cctune profiler: recording') (want $PROCS)"
  fi
elif [[ $METHOD == inprocess ]]; then
  # One process, RUNS rounds of each side in ABBA order, communicators made anew each round
  # (cctune-ref-collectives --ab-env): no spread between processes. NCCL's INIT lines (comm
  # creation only, never the timed loop) show the plugin loaded in the "on" rounds alone.
  # NCCL remembers a failed plugin load for good, so the plugin stays named on both sides: "off"
  # is the plugin loaded and idle (no CCTUNE_WORKLOAD: it asks NCCL for no events), "on" records.
  # What loading alone costs is the separate-process method's one-GPU figure (METHOD=processes).
  mkdir -p "$OUTDIR/workload.ab"
  ab=()
  for kv in "${on_env[@]:1}" CCTUNE_WORKLOAD="$OUTDIR/workload.ab"; do ab+=(--ab-env "$kv"); done
  # shellcheck disable=SC2046
  env "${on_env[0]}" NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT NCCL_DEBUG_FILE="$OUTDIR/ab.nccl.log" timeout 900 "${PIN[@]}" "$REF" --coll allreduce \
    --gpus "$GPUS" -w "$WARMUP" -n "$ITERS" -r "$REF_BATCHES" "${ab[@]}" --ab-rounds "$RUNS" $(tr ',' ' ' <<<"$SIZES") \
    >"$OUTDIR/ab.csv" 2>"$OUTDIR/ab.stderr" || { echo "FAIL: reference loop (A/B) failed:"; tail -n 5 "$OUTDIR/ab.stderr"; exit 1; }
  split_ab_rounds
  echo "   $RUNS rounds of each side in one process ($((SECONDS - start)) s); plugin loads with recording on: $(grep -c 'cctune profiler: recording' "$OUTDIR/ab.nccl.log") (want $RUNS)"
else
  for run in $(seq 1 "$RUNS"); do
    for side in off on; do
      env_args=()
      if [[ $side == on ]]; then
        mkdir -p "$OUTDIR/workload.$run"
        env_args=("${on_env[@]}" CCTUNE_WORKLOAD="$OUTDIR/workload.$run" NCCL_DEBUG=WARN NCCL_DEBUG_FILE="$OUTDIR/on.$run.nccl.log")
      fi
      # shellcheck disable=SC2046
      env "${env_args[@]}" timeout 300 "${PIN[@]}" "$REF" --coll allreduce --gpus "$GPUS" -w "$WARMUP" -n "$ITERS" -r "$REF_BATCHES" \
        $(tr ',' ' ' <<<"$SIZES") >"$OUTDIR/$side.$run.csv" 2>"$OUTDIR/$side.$run.stderr" \
        || { echo "FAIL: reference loop ($side, run $run) failed:"; tail -n 5 "$OUTDIR/$side.$run.stderr"; exit 1; }
    done
    echo "   run $run of $RUNS done ($((SECONDS - start)) s)"
  done
fi

EVENTS_BENCH=$BUILD/bench/profiler_events_bench
if [[ $FLOOR == 1 ]]; then
  echo "note: FLOOR=1: no event bench (it times the plugin's code, which the floor does not run)"
elif [[ -x "$EVENTS_BENCH" ]]; then
  echo "== host time per recorded call (profiler_events_bench, median of 5 repetitions)"
  LD_LIBRARY_PATH="$BUILD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" CCTUNE_PLUGIN_SO="$PLUGIN" timeout 300 "${PIN[@]}" "$EVENTS_BENCH" \
    --benchmark_repetitions=5 --benchmark_report_aggregates_only=true --benchmark_min_time=0.2 --benchmark_filter="Collective|LaunchThread|Followed|Send|Cold" \
    --benchmark_out="$OUTDIR/events.json" --benchmark_out_format=json >"$OUTDIR/events.txt" 2>&1 \
    || { echo "FAIL: profiler_events_bench failed:"; tail -n 5 "$OUTDIR/events.txt"; exit 1; }
else
  echo "note: $EVENTS_BENCH not built (needs Google Benchmark): no host-time figures"
fi

OVERHEAD_FLOOR=$FLOOR python3 "$(dirname "$0")/overhead_table.py" "$OUTDIR" "$RUNS" "$GPUS"
