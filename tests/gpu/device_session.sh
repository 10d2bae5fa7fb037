#!/usr/bin/env bash
# Everything we run on a lent GPU machine, in parts that each fit one device call (< 10 min):
#   tests/gpu/device_session.sh BUNDLE_DIR OUT_DIR PART
# BUNDLE_DIR: a build folder or tools/gpu-bundle.sh output. PART:
#   checks  the GPU runner (tests/gpu/run_gpu_tests.sh): every check, multi-rank ones through
#           the shared-GPU test mode on a one-GPU machine
#   bench   bench/nccl_side_by_side.sh (cctune's batch_us against the reference loop, nine
#           collectives, out-of-place and in-place, --p2p-impl both)
#   mpibench  bench/mpi_batch_vs_loop.sh (the MPI backend against a plain loop, on a quiet host)
#   sweeps  a quick space sweep and a shared-GPU sweep whose results show what NCCL offered
#   collectives  tests/gpu/collectives_gpu_check.sh: all nine collectives, every dtype and op,
#           forced broadcast/reduce configs and a p2p group, in the shared-GPU test mode (~4 min)
#   diagnose  tests/gpu/diagnose_gpu_check.sh: cctune diagnose through NCCL on 4 emulated nodes
#           (shared-GPU test mode), and the dry run of 1024 nodes
#   workload  tests/gpu/workload/capture_workloads.sh with the profiler half loaded too: a real
#           PyTorch job (2 processes, one GPU, 2 NCCL hosts) whose profiler files must agree with
#           its COLL log and its own counts, groups included (check_profiler_workload.py), and a job
#           that switches recording off and on itself (switched, check_profiler_switch.py); needs
#           PyTorch. CAPTURE_WORKLOADS picks the jobs (default: ddp fsdp alltoall grouped switched)
#   workload_multi  tests/gpu/workload/multi_gpu_chain.sh: a PyTorch DDP job with one process per
#           GPU (NVLink), profiler half and COLL log in one run, checked against each other, imported
#           with its steps and replayed on the same GPUs (issue #34)
#   inspector  the same capture with NCCL Inspector loaded instead (NVIDIA/nccl ext-profiler/
#           inspector, built beforehand: CCTUNE_INSPECTOR_SO, default .devcarry-inspector/
#           libnccl-profiler-inspector.so in the repository); its files come back in
#           inspector.tgz as <job>/inspector/, the fixture layout (docs/WORKLOAD.md)
#   replay  tests/gpu/workload/replay_gpu_check.sh: cctune replay of the recorded DDP step, 2 ranks
#           sharing one GPU, under NCCL's defaults and A/B against a ring/simple profile
#   overhead  bench/profiler_overhead.sh: AllReduce 8 B-64 MiB with the profiler half recording
#           against without it, interleaved runs (about 4 min a mode with RUNS=9); OVERHEAD_MODES
#           lists the settings: timing (default: about one call in 100 followed and timed), calls,
#           every (each call timed), timing:N (one call in N on average), procs:N (timing, N processes
#           driving a GPU each: bench/profiler_overhead.sh's PROCS), floor:N (the same with the floor
#           profiler: NCCL's own share, FLOOR=1), other:N (procs:N with the library OTHER_PLUGIN names,
#           another build), events (bench/profiler_events_compare.sh, OTHER_PLUGIN against the
#           bundle's library, on this host's CPU); METHOD (switch, inprocess, processes), PIN_CPUS
#           and RUNS pass through
#   workload_tune  tests/gpu/workload/workload_tune_gpu_check.sh: the captured DDP job's workload
#           through sweep --workload, tune and verify --workload (issue #25)
#   job_socket, job_nvlink, job_fsdp2  tests/gpu/workload/job_chain.sh on every GPU of the host
#           (2 or 4): a real PyTorch job captured, swept with --space default, tuned and verified
#           on the job itself (verify --job; TUNE_JOB=1 adds tune --job); socket: 2 emulated nodes
#           (issue #35). STEPS, ROUNDS, SPACE, TUNE_JOB, TUNE_ROUNDS, CANDIDATES, SWEEP_MAX_TIME,
#           OVERLAP and RESUME pass through (OVERLAP=on: the sweep runs beside a cuBLAS GEMM load,
#           --overlap; off by default). STATE_DIR names a folder kept between calls on the same warm machine
#           (e.g. /tmp/cctune-state/job_socket) in place of the scratch one: with RESUME=1 the next
#           call's chain goes on from the stages it finished (capture..verify --job in one call,
#           tune --job in the next: together they outlast one 10-minute call). STEP_LIMIT (seconds,
#           default 590) bounds the chain's step, so the packing after it fits the call too
#   watch   tests/gpu/workload/watch_no_rules.sh: the production watch on a profile with no rules
#           (issue #35): the DDP job, one process per GPU (2 or more), its shapes swept under mpirun
#           with NCCL's defaults only and tuned; rerun with the profile, healthy (no finding) and with
#           NCCL_MAX_NCHANNELS=1 (reported in NCCL's log and the workload files, with its shortfall)
#   onebox  tests/gpu/onebox_gpu_check.sh: NCCL across 2 hosts that are apart (issue 44): a one-box
#           cluster (tools/onebox-cluster.sh) of 2 hosts x GPUS_PER_HOST (default 1) GPUs, each its own
#           network and UTS namespace, links shaped to RATE/LATENCY (default 25gbit/50us; the rate alone
#           where the kernel has no netem, said in the log); an NCCL AllReduce sweep with one supervisor
#           per host, NCCL_DEBUG=INFO: socket transport on eth0, no P2P/SHM between the hosts, busbw
#           within 10 % of the link. Without ip/tc the carried iproute2 in .devcarry-iproute2
#           (tools/onebox-carry.sh; ONEBOX_IPROUTE names another folder). About 2 min
#   onebox_diagnose  tests/gpu/onebox_diagnose_check.sh: cctune diagnose through NCCL across 3 one-box
#           hosts (GPUs shared where fewer than 3), node2's eth0 at a tenth of RATE: exactly that NIC named
#   job_onebox  tests/gpu/workload/job_chain.sh in mode onebox: the DDP job with one torchrun launcher per
#           one-box host (tests/gpu/workload/onebox_torchrun.sh, c10d rendezvous on node0), captured,
#           swept under mpirun across the hosts, tuned, verified on the job; same settings as job_socket
#           plus ONEBOX_LINK (default 25gbit), ONEBOX_NICS (NICs per host; 2 or more: NCCL chooses) and ONEBOX_SLOW
#   register  tests/gpu/register_gpu_check.sh, every GPU of the host: NCCL's defaults against local buffer registration
#   overlap  tests/gpu/overlap_gpu_check.sh, every GPU of the host (one: shared by 2 workers): sweep
#           --overlap (cuBLAS GEMMs beside each point) with channels-32, every point carries its figures
#   grid    issue #35's grid on every GPU of the host: sweep --space default (its profile written
#           after the confirmation round), then verify of that profile; tests/gpu/check_grid_rules.py
#           prints each rule's verdict and fails when a written rule reads "same" or slower.
#           SWEEP_MAX_TIME (default 0.25) and ROUNDS (verify's, default 6) pass through
# Logs go to a scratch folder packed into OUT_DIR/<part>.tgz; OUT_DIR/<part>.txt holds the
# step summary and the tail of each step (the device tool brings back 8 files at most).
# NVLink multicast stays off in every process started here: NCCL_NVLS_ENABLE=0.
set -uo pipefail
b=$(cd "${1:?BUNDLE_DIR}" && pwd)
out=${2:?OUT_DIR}
part=${3:?PART: checks, bench, mpibench, sweeps, collectives, diagnose, workload, workload_multi, workload_tune, grid, job_socket, job_nvlink, job_fsdp2, job_onebox, onebox, onebox_diagnose, watch, register, overlap, inspector, replay or overhead}
mkdir -p "$out"; out=$(cd "$out" && pwd)
# STATE_DIR: the chain's folder outlives the call (the machine stays warm between calls); its logs
# and outputs are packed into OUT/<part>.tgz after every call all the same.
if [[ -n ${STATE_DIR:-} ]]; then
  mkdir -p "$STATE_DIR"; g=$(cd "$STATE_DIR" && pwd)
else
  g=$(mktemp -d "/tmp/cctune-$part.XXXXXX")
fi
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
summary=$out/$part.txt
{ date -u; nvidia-smi -L; uname -r; ldd "$b/cctune" | grep -E 'not found|mpi|hwloc' ; } > "$summary" 2>&1

step() {  # step NAME SECONDS COMMAND...: bounded, logged, timed (TAIL_LINES of its log in the summary)
  local name=$1 limit=$2; shift 2
  # A kept STATE_DIR holds the earlier call's log of this step: the new one gets the next number.
  local n=1 base=$name
  while [[ -e $g/$name.log ]]; do n=$((n + 1)); name=$base.$n; done
  local t0; t0=$(date +%s)
  timeout "$limit" "$@" > "$g/$name.log" 2>&1
  local rc=$?
  { echo "== step $name: rc=$rc $(( $(date +%s) - t0 )) s"; tail -n "${TAIL_LINES:-40}" "$g/$name.log"; } >> "$summary"
  echo "step $name: rc=$rc $(( $(date +%s) - t0 )) s"
}

case $part in
  checks)
    step checks 540 tests/gpu/run_gpu_tests.sh "$b" "$g/checks" ;;
  bench)  # all nine collectives (about 6 min on one H100): the compact ratio table in the summary
    TAIL_LINES=60 step side_by_side 540 bench/nccl_side_by_side.sh "$b" "$g" ;;
  mpibench)
    step mpi_bench 240 bench/mpi_batch_vs_loop.sh "$b" "$g" ;;
  sweeps)
    step space_plan 30 "$b/cctune" sweep --space default --dry-run
    step space_quick 150 "$b/cctune" sweep --space quick -e 1M -o "$g/space"
    step shared_offered 150 "$b/cctune" sweep --backend nccl --test-shared-gpu 2 -b 1K -e 64K -f 8 --max-time 0.1 \
      --configs auto,ring/simple,tree/ll --env-group nvls-off:NCCL_NVLS_ENABLE=0 -o "$g/shared"
    step offered 10 python3 -c 'import json,sys
r = json.load(open(sys.argv[1]))
for run in r["runs"]:
    print(run["group"], "nccl_env:", run.get("nccl_env"), "offered:", run.get("nccl_offered"))' "$g/shared/results.json" ;;
  collectives)
    # Every PASS/FAIL line matters here (one per sweep): keep the whole log in the summary.
    TAIL_LINES=400 step collectives 540 tests/gpu/collectives_gpu_check.sh "$b" "$g" ;;
  diagnose)
    step diagnose_plan 30 "$b/cctune" diagnose --dry-run --nodes 1024 --gpus 8
    step diagnose 450 tests/gpu/diagnose_gpu_check.sh "$b" "$g" ;;
  workload)
    so=$b/lib/libnccl-tuner-cctune.so
    [[ -f $so ]] || so=$b/libnccl-tuner-cctune.so
    # shellcheck disable=SC2086  # CAPTURE_WORKLOADS: a space-separated list of capture_job.py's jobs
    TAIL_LINES=80 CCTUNE_PROFILER_SO=$so CCTUNE_BIN=$b/cctune step workload 500 tests/gpu/workload/capture_workloads.sh "$g/workload" \
      ${CAPTURE_WORKLOADS:-ddp fsdp alltoall grouped switched} ;;
  workload_multi)  # one process per GPU on every GPU of the host (2 or 4): the chain of multi_gpu_chain.sh
    TAIL_LINES=80 step workload_multi 500 tests/gpu/workload/multi_gpu_chain.sh "$b" "$g/multi" ;;
  onebox)
    TAIL_LINES=60 step onebox 540 tests/gpu/onebox_gpu_check.sh "$b" "$g/onebox" ;;
  onebox_diagnose)
    TAIL_LINES=40 step onebox_diagnose 420 tests/gpu/onebox_diagnose_check.sh "$b" "$g/onebox_diagnose" ;;
  job_socket | job_nvlink | job_fsdp2 | job_onebox)
    TAIL_LINES=120 step "$part" "${STEP_LIMIT:-590}" tests/gpu/workload/job_chain.sh "$b" "$g/$part" "${part#job_}" ;;
  register) TAIL_LINES=60 step register 480 tests/gpu/register_gpu_check.sh "$b" "$g/register" ;;
  overlap) TAIL_LINES=60 step overlap 480 tests/gpu/overlap_gpu_check.sh "$b" "$g/overlap" ;;
  watch)  # one process per GPU on every GPU of the host (2 or more): watch_no_rules.sh
    TAIL_LINES=80 step watch 540 tests/gpu/workload/watch_no_rules.sh "$b" "$g/watch" ;;
  inspector)
    so=${CCTUNE_INSPECTOR_SO:-.devcarry-inspector/libnccl-profiler-inspector.so}
    TAIL_LINES=60 CCTUNE_INSPECTOR_SO=$so CCTUNE_BIN=$b/cctune step inspector 500 tests/gpu/workload/capture_workloads.sh "$g/inspector" ;;
  replay)
    TAIL_LINES=60 step replay 500 tests/gpu/workload/replay_gpu_check.sh "$b" "$g/replay" ;;
  overhead)  # OVERHEAD_MODES: "timing" (the plugin's default sampling), "calls", "every" (every call timed), ...
    n=0
    for mode in ${OVERHEAD_MODES:-timing}; do
      n=$((n + 1))  # a mode may come twice: each run keeps its own logs
      case $mode in
        calls) TAIL_LINES=30 EVENTS=calls TAG=calls.$n step profiler_overhead_calls.$n 540 bench/profiler_overhead.sh "$b" "$g" ;;
        every) TAIL_LINES=30 TIMING_EVERY=1 TAG=every.$n step profiler_overhead_every.$n 540 bench/profiler_overhead.sh "$b" "$g" ;;
        procs:*) TAIL_LINES=30 PROCS=${mode#procs:} TAG=procs${mode#procs:}.$n step "profiler_overhead_procs${mode#procs:}.$n" 540 \
          bench/profiler_overhead.sh "$b" "$g" ;;
        floor:*) TAIL_LINES=30 FLOOR=1 PROCS=${mode#floor:} TAG=floor${mode#floor:}.$n step "profiler_overhead_floor${mode#floor:}.$n" 540 \
          bench/profiler_overhead.sh "$b" "$g" ;;
        other:*) TAIL_LINES=30 PLUGIN=${OTHER_PLUGIN:?other:N needs OTHER_PLUGIN} PROCS=${mode#other:} TAG=other${mode#other:}.$n \
          step "profiler_overhead_other${mode#other:}.$n" 540 bench/profiler_overhead.sh "$b" "$g" ;;
        events) TAIL_LINES=20 LD_LIBRARY_PATH="$b/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" step "profiler_events_compare.$n" 300 \
          bench/profiler_events_compare.sh "$b/bench/profiler_events_bench" "${OTHER_PLUGIN:?events needs OTHER_PLUGIN}" \
          "$b/lib/libnccl-tuner-cctune.so" ;;
        timing:*) TAIL_LINES=30 TIMING_EVERY=${mode#timing:} TAG=timing${mode#timing:}.$n step "profiler_overhead_timing${mode#timing:}.$n" 540 \
          bench/profiler_overhead.sh "$b" "$g" ;;
        *) TAIL_LINES=30 TAG=timing.$n step profiler_overhead_timing.$n 540 bench/profiler_overhead.sh "$b" "$g" ;;
      esac
    done ;;
  grid)
    TAIL_LINES=60 step grid_sweep 360 "$b/cctune" sweep --space default --max-time "${SWEEP_MAX_TIME:-0.25}" -o "$g/grid/sweep"
    TAIL_LINES=60 step grid_verify 240 "$b/cctune" verify --profile "$g/grid/sweep/profile.json" --rounds "${ROUNDS:-6}" -o "$g/grid/verify"
    TAIL_LINES=60 step grid_rules 30 python3 tests/gpu/check_grid_rules.py "$g/grid/sweep/profile.json" "$g/grid/verify/verify.json" ;;
  workload_tune)
    TAIL_LINES=80 step workload_tune 540 tests/gpu/workload/workload_tune_gpu_check.sh "$b" "$g/workload_tune" ;;
  *) echo "unknown part $part"; exit 2 ;;
esac
tar czf "$out/$part.tgz" -C "$g" .
grep '^== step' "$summary"
