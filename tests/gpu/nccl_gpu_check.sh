#!/usr/bin/env bash
# GPU checks of cctune's NCCL backend, on all local GPUs of one host.
#   tests/gpu/nccl_gpu_check.sh BUILD_DIR [OUTPUT_DIR]     (OUTPUT_DIR defaults to $OUT, else a temp dir)
# Exits 0 with "SKIP: <reason>" where nvidia-smi finds no GPU; otherwise 0 only if every check passed.
# Checks: data check (#wrong == 0) over collectives, placements and dtypes; NCCL's own choice is
# reported for every auto point; forced algo/proto/channels reach NCCL (NCCL_DEBUG_SUBSYS=TUNING
# lines in the rank-0 worker log); --transport pcie / net and --emulate-nodes 2 (>= 2 GPUs);
# a size larger than GPU memory is refused with a one-line error before measuring.
# With one GPU the multi-rank parts run in the shared-GPU test mode (--test-shared-gpu 2: two
# workers on the GPU, each its own NCCL host, socket transport; small sizes): a data check over
# 2 ranks, forced configs, --transport net, 2 NCCL nodes; and every worker of those sweeps must
# show NCCL_NVLS_ENABLE=0 in its environment and in NCCL's own INFO line. --transport pcie (SHM
# between GPUs of one host) has no meaning there and is skipped with its reason.
# Env: CCTUNE_FORCE_FLAGS: template for forcing a config, e.g. '--configs {algo}/{proto}/{channels}'
#      (default: detected from `cctune sweep --help`).
set -euo pipefail
export NCCL_NVLS_ENABLE=0  # never NVLS/multicast in tests
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

BUILD=${1:?usage: nccl_gpu_check.sh BUILD_DIR [OUTPUT_DIR]}
OUTDIR=${2:-${OUT:-}}
[[ -n "$OUTDIR" ]] || OUTDIR=$(mktemp -d /tmp/cctune-nccl-gpu.XXXXXX)
OUTDIR=$OUTDIR/nccl_gpu_check
mkdir -p "$OUTDIR"

if ! command -v nvidia-smi >/dev/null 2>&1; then echo "SKIP: nvidia-smi not found"; exit 0; fi
NGPU=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
if [[ "$NGPU" -lt 1 ]]; then echo "SKIP: nvidia-smi finds no GPU"; exit 0; fi

CCTUNE=$BUILD/cctune
[[ -x "$CCTUNE" ]] || { echo "FAIL: $CCTUNE not found (build the cctune target)"; exit 1; }
[[ -f "$BUILD/libcctune-nccl.so" ]] || { echo "FAIL: $BUILD/libcctune-nccl.so not found (configure with -DCCTUNE_WITH_CUDA=ON)"; exit 1; }
command -v python3 >/dev/null || { echo "FAIL: python3 is needed to read results.json"; exit 1; }

FAILS=0
# One GPU: the multi-rank parts let 2 workers share it (functional checks, not performance).
SHARED=()
if [[ "$NGPU" -lt 2 ]]; then SHARED=(--test-shared-gpu 2); fi
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }
echo "== nccl_gpu_check: $NGPU GPU(s), output in $OUTDIR"
nvidia-smi -L

HELP=$("$CCTUNE" sweep --help 2>&1 || true)
force_flags() {  # algo proto channels -> the flags that force one config
  local t=${CCTUNE_FORCE_FLAGS:-}
  if [[ -z "$t" ]]; then
    if grep -q -- '--configs' <<<"$HELP"; then t='--configs {algo}/{proto}/{channels}'
    elif grep -q -- '--algos' <<<"$HELP"; then t='--algos {algo} --protos {proto} --channels {channels}'
    elif grep -q -- '--algo' <<<"$HELP"; then t='--algo {algo} --proto {proto} --channels {channels}'
    else echo "cannot find how to force algo/proto in 'cctune sweep --help'; set CCTUNE_FORCE_FLAGS" >&2; return 1; fi
  fi
  t=${t//\{algo\}/$1}; t=${t//\{proto\}/$2}; t=${t//\{channels\}/$3}
  echo "$t"
}

# sweep NAME ARGS...: runs cctune sweep --backend nccl into $OUTDIR/NAME; rc in $RC, stderr in NAME/stderr.
sweep() {
  local name=$1; shift
  local dir=$OUTDIR/$name
  rm -rf "$dir"; mkdir -p "$dir"
  echo "-- $name: cctune sweep --backend nccl $* -o $dir"
  set +e
  timeout 900 "$CCTUNE" sweep --backend nccl -o "$dir" "$@" >"$dir/stdout" 2>"$dir/stderr"
  RC=$?
  set -e
  tail -n 3 "$dir/stderr" | sed 's/^/   stderr: /'
}

# check_results DIR [--forced algo/proto/channels]: python reads DIR/results.json.
check_results() {
  python3 - "$@" <<'PY'
import json, sys
d = sys.argv[1]
forced = sys.argv[3] if len(sys.argv) > 3 and sys.argv[2] == "--forced" else None
res = json.load(open(d + "/results.json"))
problems, ok, skipped = [], 0, 0
runs = [r for r in res.get("runs", []) if r.get("backend") == "nccl"]
if not runs: problems.append("no nccl run in results.json")
for run in runs:
    if run.get("status") != "ok": problems.append(f"group {run.get('group')} {run.get('status')}: {run.get('reason')}")
    for p in run.get("points", []):
        where = f"{run.get('group')} {p.get('collective')} {p.get('size_bytes')}B {'in' if p.get('in_place') else 'out'}"
        if p.get("status") == "skipped": skipped += 1; print(f"   skipped {where}: {p.get('reason')}"); continue
        if p.get("status") != "ok": problems.append(f"{where}: {p.get('status')} {p.get('reason')}"); continue
        ok += 1
        if p.get("wrong", -1) != 0: problems.append(f"{where}: wrong={p.get('wrong')}")
        chosen = p.get("chosen") or {}
        # One rank: NCCL copies without choosing an algorithm, so there is nothing to report.
        if run.get("nranks", 0) > 1 and (not chosen.get("algo") or not chosen.get("proto")):
            problems.append(f"{where}: no chosen algo/proto")
        if forced and (p.get("config") or {}).get("algo", "auto") != "auto":
            a, pr, ch = forced.split("/")
            got = f"{chosen.get('algo')}/{chosen.get('proto')}/{chosen.get('channels')}"
            if got != f"{a}/{pr}/{ch}": problems.append(f"{where}: chosen {got}, forced {forced}")
        # busbw = algbw x (n-1)/n or 2(n-1)/n, which is 0 for one rank (as nccl-tests prints it).
        bw = "busbw_GBps" if run.get("nranks", 0) > 1 else "algbw_GBps"
        if not (p.get(bw, 0) > 0): problems.append(f"{where}: {bw} {p.get(bw)}")
print(f"   {ok} ok point(s), {skipped} skipped, nnodes={[r.get('nnodes') for r in runs]}")
if ok == 0: problems.append("no point measured")
for x in problems[:20]: print("   problem: " + x)
sys.exit(1 if problems else 0)
PY
}

# 1. Data check and NCCL's own choices, all three collectives, both placements.
sweep auto -b 8 -e 4M -f 8 -n 5 -w 2 -c 1 --max-time 0.2 --min-iters 5
if [[ $RC -eq 0 ]] && check_results "$OUTDIR/auto"; then pass "auto sweep on $NGPU GPU(s): #wrong == 0, chosen algo/proto everywhere"
else fail "auto sweep (rc=$RC), see $OUTDIR/auto"; fi

# 2. Other dtypes and ops through the device check kernels.
for dt in float16 bfloat16 float64 int32 int8 uint8; do
  sweep "dtype_$dt" -b 1K -e 1M -f 32 -n 3 -w 1 -c 1 --max-time 0.1 --min-iters 3 -d "$dt"
  if [[ $RC -eq 0 ]] && check_results "$OUTDIR/dtype_$dt" >/dev/null; then pass "dtype $dt: #wrong == 0"
  else check_results "$OUTDIR/dtype_$dt" || true; fail "dtype $dt (rc=$RC)"; fi
done
for op in max min; do
  sweep "op_$op" -b 1K -e 1M -f 32 -n 3 -w 1 -c 1 --max-time 0.1 --min-iters 3 --op "$op" --collectives allreduce,reducescatter
  if [[ $RC -eq 0 ]] && check_results "$OUTDIR/op_$op" >/dev/null; then pass "op $op: #wrong == 0"
  else check_results "$OUTDIR/op_$op" || true; fail "op $op (rc=$RC)"; fi
done

# check_nvls_off DIR: every worker of DIR shows NCCL_NVLS_ENABLE=0 in its environment (its first
# log line) and in NCCL's INFO line (misc/param.cc: "%s set by environment to %lld.", subsystem
# ENV, so the sweep needs NCCL_DEBUG=INFO with ENV in NCCL_DEBUG_SUBSYS).
check_nvls_off() {
  local dir=$1 logs=("$1"/workers/*.log) log bad=0
  for log in "${logs[@]}"; do
    [[ -f "$log" ]] || { echo "   no worker log in $dir/workers"; return 1; }
    grep -m1 '^cctune worker: rank' "$log" | grep -q ' NCCL_NVLS_ENABLE=0\b' || { echo "   $log: environment lacks NCCL_NVLS_ENABLE=0"; bad=1; }
    grep -qF 'NCCL_NVLS_ENABLE set by environment to 0.' "$log" || { echo "   $log: no NCCL INFO 'NCCL_NVLS_ENABLE set by environment to 0.'"; bad=1; }
  done
  [[ $bad -eq 0 ]] && echo "   ${#logs[@]} worker(s): NCCL_NVLS_ENABLE=0 in the environment and in NCCL's INFO line"
  return $bad
}
# check_shared DIR: a shared-GPU sweep is recorded as such, each worker its own NCCL host.
check_shared() {
  python3 - "$1" <<'PY'
import glob, json, re, sys
d = sys.argv[1]
res = json.load(open(d + "/results.json"))
ok = res["meta"]["settings"].get("test_mode") == "shared-gpu" and all(r.get("test_mode") == "shared-gpu" for r in res["runs"])
ids = [re.search(r" NCCL_HOSTID=(\S+)", open(f).readline() or "") for f in glob.glob(d + "/workers/*.log")]
ids = [m.group(1) if m else None for m in ids]
print(f"   test_mode recorded: {ok}; NCCL_HOSTIDs {sorted(map(str, ids))}; nnodes {[r['nnodes'] for r in res['runs']]}")
sys.exit(0 if ok and ids and None not in ids and len(set(ids)) == len(ids) and all(r["nnodes"] == r["nranks"] for r in res["runs"]) else 1)
PY
}

if [[ ${#SHARED[@]} -gt 0 ]]; then
  NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ENV sweep shared_auto "${SHARED[@]}" -b 8 -e 1M -f 32 -n 5 -w 2 -c 1 --max-time 0.1 --min-iters 5
  if [[ $RC -eq 0 ]] && check_results "$OUTDIR/shared_auto" && check_shared "$OUTDIR/shared_auto" && check_nvls_off "$OUTDIR/shared_auto"
  then pass "2 ranks sharing the GPU (--test-shared-gpu 2): #wrong == 0, chosen algo/proto everywhere, NVLS off in every worker"
  else fail "shared-GPU sweep (rc=$RC), see $OUTDIR/shared_auto"; fi
fi

# 3. Forced choices reach NCCL: its own TUNING lines (rank 0 prints them) say what ran.
if [[ $NGPU -ge 2 || ${#SHARED[@]} -gt 0 ]]; then
  check_forced() {  # name algo proto channels size
    local name=$1 algo=$2 proto=$3 channels=$4 size=$5 flags
    flags=$(force_flags "$algo" "$proto" "$channels") || { fail "forced $algo/$proto/$channels: no flag to force it"; return; }
    # shellcheck disable=SC2086
    NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=TUNING sweep "$name" "${SHARED[@]}" --collectives allreduce --placement out --sizes "$size" \
      -n 5 -w 2 -c 1 --max-time 0.2 --min-iters 5 $flags
    local log want_algo want_proto lines other
    log=$(find "$OUTDIR/$name/workers" -name '*.r0.log' 2>/dev/null | head -n 1 || true)
    want_algo=${algo^^}; want_proto=${proto^^}
    lines=$(grep -h "AllReduce: $size Bytes -> Algo" "$log" 2>/dev/null || true)
    other=$(grep -v "Algo $want_algo proto $want_proto " <<<"$lines" | grep -c . || true)
    echo "   NCCL: $(head -n 1 <<<"$lines")"
    if [[ $RC -ne 0 ]]; then fail "forced $algo/$proto/$channels: sweep rc=$RC"; return; fi
    if [[ -z "$log" || -z "$lines" ]]; then fail "forced $algo/$proto/$channels: no NCCL TUNING line in $OUTDIR/$name/workers/*.r0.log"; return; fi
    # If the plan also holds an auto config, NCCL's own lines for it are expected too: then
    # only require the forced signature to appear; otherwise every line must carry it.
    local has_auto
    has_auto=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(int(any((p.get("config") or {}).get("algo","auto")=="auto" for x in r["runs"] for p in x["points"])))' "$OUTDIR/$name/results.json" 2>/dev/null || echo 0)
    local signature="Algo $want_algo proto $want_proto "
    [[ "$channels" -gt 0 ]] && signature+="channel{Lo..Hi}={0..$((channels - 1))}"
    if [[ "$has_auto" == 1 ]]; then
      grep -qF -- "$signature" <<<"$lines" || { fail "forced $algo/$proto/$channels: no NCCL line with '$signature'"; return; }
    else
      [[ "$other" -eq 0 ]] || { fail "forced $algo/$proto/$channels: $other NCCL line(s) show another algo/proto"; return; }
      local bad
      bad=$(grep -vF -- "$signature" <<<"$lines" | grep -c . || true)
      [[ "$bad" -eq 0 ]] || { fail "forced $algo/$proto/$channels: $bad NCCL line(s) without '$signature'"; return; }
    fi
    check_results "$OUTDIR/$name" --forced "$algo/$proto/$channels" || { fail "forced $algo/$proto/$channels: results"; return; }
    pass "forced $algo/$proto/$channels reached NCCL on every operation ($(grep -c . <<<"$lines") TUNING lines)"
  }
  if [[ ${#SHARED[@]} -eq 0 ]]; then check_forced forced_ring_simple_16 ring simple 16 4194304
  else check_forced forced_ring_simple_1 ring simple 1 1048576; fi  # over sockets: few channels, small sizes
  check_forced forced_ring_ll ring ll 0 65536
  # An impossible choice is a skip with NCCL's reason, never a failure: tree cannot do allgather.
  if flags=$(force_flags tree simple 0); then
    # shellcheck disable=SC2086
    sweep forced_unsupported "${SHARED[@]}" --collectives allgather --placement out --sizes 1048576 -n 3 -w 1 --max-time 0.1 $flags
    if [[ $RC -eq 0 ]] && python3 - "$OUTDIR/forced_unsupported" <<'PY'
import json, sys
pts = [p for r in json.load(open(sys.argv[1] + "/results.json"))["runs"] for p in r["points"]]
print("   " + "; ".join(f"{p['status']}: {p.get('reason', '')}" for p in pts))
sys.exit(0 if pts and all(p["status"] == "skipped" and p.get("reason") for p in pts) else 1)
PY
    then pass "tree/simple allgather skipped with a reason"; else fail "tree/simple allgather not skipped cleanly (rc=$RC)"; fi
  fi
else
  echo "SKIP: forced-choice checks need >= 2 GPUs (NCCL runs 1 rank without a tuner decision)"
fi

# 4. Transports and emulated nodes.
if [[ $NGPU -ge 2 || ${#SHARED[@]} -gt 0 ]]; then
  check_transport() {  # name want_pattern forbidden_pattern args...
    local name=$1 want=$2 forbid=$3; shift 3
    NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ENV sweep "$name" -b 1K -e 1M -f 32 -n 3 -w 1 -c 1 --max-time 0.1 --min-iters 3 "$@"
    local logs=("$OUTDIR/$name"/workers/*.log)
    if [[ $RC -ne 0 ]] || ! check_results "$OUTDIR/$name"; then fail "$name (rc=$RC)"; return; fi
    if ! grep -q -- "$want" "${logs[@]}"; then fail "$name: no '$want' in the worker logs"; return; fi
    if [[ -n "$forbid" ]] && grep -q -- "$forbid" "${logs[@]}"; then fail "$name: '$forbid' found in the worker logs"; return; fi
    pass "$name: #wrong == 0, NCCL logs show '$want'"
  }
  if [[ ${#SHARED[@]} -eq 0 ]]; then
    check_transport transport_pcie "via SHM" "via P2P" --transport pcie
    check_transport transport_net "via NET/" "via P2P" --transport net
    if (( NGPU % 2 == 0 )); then check_transport emulate_2_nodes "via NET/" "" --emulate-nodes 2
    else echo "SKIP: --emulate-nodes 2 needs an even GPU count ($NGPU)"; fi
  else
    echo "SKIP: --transport pcie needs 2 GPUs of one NCCL host (SHM between them); shared-GPU workers are separate hosts"
    check_transport transport_net "via NET/" "via P2P" "${SHARED[@]}" --transport net
    # Two workers as two NCCL nodes: what --emulate-nodes 2 checks on 2 GPUs.
    check_transport shared_2_nodes "via NET/" "via P2P" "${SHARED[@]}"
    if check_shared "$OUTDIR/shared_2_nodes" && check_nvls_off "$OUTDIR/shared_2_nodes"; then
      pass "shared_2_nodes: 2 ranks on 2 NCCL nodes, distinct NCCL_HOSTIDs, NVLS off in every worker"
    else fail "shared_2_nodes: test mode, host ids or NVLS check"; fi
  fi
fi

# 5. A size larger than GPU memory is refused before measuring, in one line.
MEM_MIB=$(nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits | sort -n | tail -n 1 | tr -dc '0-9')
BIG=$(( (MEM_MIB + 1024) * 1024 * 1024 ))
START=$(date +%s)
sweep too_big --collectives allreduce --placement out --sizes "$BIG" -n 2 -w 1
ELAPSED=$(( $(date +%s) - START ))
ERRLINES=$(grep -c 'cctune: error:' "$OUTDIR/too_big/stderr" || true)
if [[ $RC -ne 0 ]] && [[ "$ERRLINES" -eq 1 ]] && grep -q 'GPU memory' "$OUTDIR/too_big/stderr" && grep -q 'free' "$OUTDIR/too_big/stderr"; then
  pass "$BIG bytes refused in ${ELAPSED}s with exit $RC: $(grep 'cctune: error:' "$OUTDIR/too_big/stderr" | cut -c1-200)"
else
  fail "oversized point: rc=$RC, $ERRLINES 'cctune: error:' line(s); stderr in $OUTDIR/too_big/stderr"
fi
if [[ -f "$OUTDIR/too_big/results.json" ]] && python3 - "$OUTDIR/too_big/results.json" <<'PY'
import json, sys
pts = [p for r in json.load(open(sys.argv[1])).get("runs", []) for p in r.get("points", []) if p.get("status") == "ok"]
sys.exit(1 if pts else 0)
PY
then :; elif [[ -f "$OUTDIR/too_big/results.json" ]]; then fail "oversized point: something was measured"; fi

# 6. CUDA-graph mode, when the CLI offers it.
if grep -q -- '--graph' <<<"$HELP"; then
  sweep graph --graph -b 1K -e 1M -f 32 -n 4 -w 1 -c 1 --max-time 0.1 --min-iters 4
  if [[ $RC -eq 0 ]] && check_results "$OUTDIR/graph"; then pass "CUDA-graph mode: #wrong == 0"; else fail "CUDA-graph mode (rc=$RC)"; fi
fi

echo "== nccl_gpu_check: $FAILS failure(s); outputs in $OUTDIR"
[[ $FAILS -eq 0 ]]
