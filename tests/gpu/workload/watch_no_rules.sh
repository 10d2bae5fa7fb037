#!/usr/bin/env bash
# Issue #35's must-show "the production watch on a profile with no rules", on a multi-GPU host:
# a real PyTorch DDP job (capture_job.py ddp), one process per GPU on one NCCL host (NVLink
# where the GPUs have it).
#   1. The job runs once with the profiler half to learn its shapes (workload import --steps).
#   2. Those shapes are swept under mpirun, one rank per GPU, with NCCL's defaults only
#      (--configs auto), and tuned: the profile holds no rule, only measured_baseline.
#   3. The job reruns with the profile deployed (tune's nccl.env: the tuner half and
#      CCTUNE_PROFILE) and the profiler half: no watch finding, neither in its workload files
#      nor in NCCL's log.
#   4. The same with NCCL_MAX_NCHANNELS=1: at least one allreduce of 1 MiB or more is reported
#      against NCCL's defaults with its shortfall, in the workload files and in NCCL's log
#      (check_watch.py says exactly what is checked).
#   tests/gpu/workload/watch_no_rules.sh BUILD_DIR OUTPUT_DIR [GPUS]   (GPUS default: all)
# The sweep and the job use PyTorch's own libnccl (the plugin refuses a profile measured with
# another NCCL). Exits 0 with "SKIP: reason" on fewer than 2 GPUs or without PyTorch or mpirun;
# 1 on a failure.
set -u
build=${1:?usage: watch_no_rules.sh BUILD_DIR OUTPUT_DIR [GPUS]}
out=${2:?usage: watch_no_rules.sh BUILD_DIR OUTPUT_DIR [GPUS]}
here=$(cd "$(dirname "$0")" && pwd)
export NCCL_NVLS_ENABLE=0   # NVLink SHARP stays off on these machines
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
command -v nvidia-smi >/dev/null 2>&1 || { echo "SKIP: nvidia-smi not found"; exit 0; }
gpus=${3:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')}
((gpus >= 2)) || { echo "SKIP: $gpus GPU(s): the job needs one process per GPU on at least 2"; exit 0; }
python3 -c 'import torch, torch.distributed' 2>/dev/null || { echo "SKIP: python3 has no PyTorch"; exit 0; }
command -v mpirun >/dev/null 2>&1 || { echo "SKIP: mpirun not found"; exit 0; }
build=$(cd "$build" && pwd)
cctune=$build/cctune
so=$build/lib/libnccl-tuner-cctune.so
[[ -f $so ]] || so=$build/libnccl-tuner-cctune.so
[[ -x $cctune && -f $so ]] || { echo "FAIL: $cctune or the tuner plugin is not built"; exit 1; }
mkdir -p "$out" && out=$(cd "$out" && pwd)   # nccl.env names the profile by its absolute path
fail() { echo "FAIL: $*"; exit 1; }
torch_nccl=$(python3 -c 'import os, nvidia.nccl as n; d = os.path.join(list(n.__path__)[0], "lib"); print(d if os.path.exists(os.path.join(d, "libnccl.so.2")) else "")' 2>/dev/null)
if [[ -n $torch_nccl ]]; then
  export LD_LIBRARY_PATH=$torch_nccl${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  echo "NCCL: PyTorch's, from $torch_nccl"
fi
job() {  # job NAME [VAR=VALUE...]: the DDP job on every GPU, profiler half loaded, CAPTURE_* as given
  local name=$1; shift
  # 12 steps: the watch judges a shape from 8 timed calls on (a rank's waits for its peers
  # would fill too small a sample); capture_job.py's 4 are enough only for the capture checks.
  env "$@" CAPTURE_STEPS=12 CAPTURE_RANKS="$gpus" CAPTURE_GPUS="$gpus" CCTUNE_PROFILER_SO="$so" "$here/capture_workloads.sh" "$out/$name" ddp
}

echo "== 1. the DDP job on $gpus GPUs, to learn its shapes"
job shapes || fail "the job failed"
steps=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["steps"])' "$out/shapes/ddp/counts.rank0.json") || fail "no step count"
"$cctune" workload import "$out"/shapes/ddp/profiler/workload.*.json --steps "$steps" -o "$out/job.workload.json" \
  || fail "workload import of the profiler files exited $?"

echo "== 2. sweep its shapes with NCCL's defaults only (mpirun -np $gpus, one rank per GPU), then tune"
rm -rf "$out/sweep"
mpi=(mpirun --oversubscribe --bind-to none -np "$gpus" -x NCCL_NVLS_ENABLE)
[[ -n ${LD_LIBRARY_PATH:-} ]] && mpi+=(-x LD_LIBRARY_PATH)
timeout 300 "${mpi[@]}" "$cctune" sweep --backend nccl --workload "$out/job.workload.json" --configs auto --max-time 0.3 \
  --no-tune -o "$out/sweep" || fail "sweep exited $?"
"$cctune" tune "$out/sweep/results.json" -o "$out/sweep" --plugin "$so" > "$out/tune.txt" 2>&1
rc=$?
cat "$out/tune.txt"
((rc == 0)) || fail "tune exited $rc"
profile=$out/sweep/profile.json envfile=$out/sweep/nccl.env
python3 - "$profile" "$gpus" "$out/job.workload.json" "$out/shapes/ddp/counts.rank0.json" "$out/sweep/results.json" <<'PY' || exit 1
import json, sys
p, n = json.load(open(sys.argv[1])), int(sys.argv[2])
job, counts = json.load(open(sys.argv[3])), json.load(open(sys.argv[4]))
planned = json.load(open(sys.argv[5]))["meta"]["settings"]["workload"]["points"]
base = {(b["collective"], b["size_bytes"]): b for b in p.get("measured_baseline", []) if b["nranks"] == n and b["nnodes"] == 1}
print(f"profile: NCCL {p['provenance']['nccl_version']} (the job's: {counts['nccl']}), {len(p.get('rules', []))} rules, "
      f"{len(base)} baseline entries for {n} ranks on 1 node")
for (c, size), b in sorted(base.items()):
    print(f"  baseline {c} {size} bytes: {b['time_us']:.1f} us, {b['busbw_GBps']:.2f} GB/s busbw")
# The step's shapes are what the sweep planned (results.json meta.settings.workload.points): a
# shape called in under a tenth of the captured steps (DDP's first full-model all-reduce) is
# start-up, left out unless --workload-rare-shapes.
swept = {(q["collective"], q["size_bytes"]) for q in planned if q["nranks"] == n}
shapes = sorted({s["bytes"] for comm in job["communicators"] if comm["nranks"] == n for s in comm["calls"]
                 if s.get("collective") == "allreduce" and s["bytes"] >= 1 << 20})
for size in shapes:
    if ("allreduce", size) not in swept:
        print(f"  not swept: allreduce {size} bytes (start-up: --workload-rare-shapes sweeps it)")
big = [("allreduce", size) for size in shapes if ("allreduce", size) in swept]
fails = []
if p.get("rules"):
    fails.append("tune wrote rules from a sweep of NCCL's defaults only")
if p["provenance"]["nccl_version"] != counts["nccl"]:
    fails.append("the profile's NCCL is not the job's: the plugin would refuse it")
if not big:
    fails.append("the job issued no allreduce of 1 MiB or more in its step on its " + str(n) + "-rank communicator")
fails += [f"no baseline measured at the job's {c} of {size} bytes" for c, size in big if (c, size) not in base]
for f in fails:
    print("FAIL:", f)
sys.exit(1 if fails else 0)
PY
for key in CCTUNE_PROFILE NCCL_TUNER_PLUGIN; do
  grep -q "^$key=" "$envfile" || fail "$envfile has no $key line: it does not deploy the plugin and the profile"
done

echo "== 3. the job with the profile deployed: healthy, nothing to report"
job normal CCTUNE_JOB_ENV_FILE="$envfile" || fail "the job with the profile failed"
python3 "$here/check_watch.py" "$cctune" "$profile" "$out/normal/ddp" "$gpus" none
normal_rc=$?

echo "== 4. the same job with NCCL's channels cut to 1 (NCCL_MAX_NCHANNELS=1): reported, with its shortfall"
job one_channel CCTUNE_JOB_ENV_FILE="$envfile" NCCL_MAX_NCHANNELS=1 || fail "the job with one channel failed"
grep -h 'NCCL_MAX_NCHANNELS' "$out/one_channel/ddp/nccl.rank0.log" | head -n 2
python3 "$here/check_watch.py" "$cctune" "$profile" "$out/one_channel/ddp" "$gpus" shortfall
slow_rc=$?
((normal_rc == 0 && slow_rc == 0)) || fail "the watch's output was not as expected (normal: rc $normal_rc, one channel: rc $slow_rc)"
echo "PASS: a profile with no rules watches the $gpus-GPU job: silent when healthy, the one-channel run reported with its shortfall"
