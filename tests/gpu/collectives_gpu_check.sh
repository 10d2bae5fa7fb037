#!/usr/bin/env bash
# All nine collectives through NCCL on one GPU, in the shared-GPU test mode (each worker its
# own NCCL host, socket transport: functional, not performance):
#   tests/gpu/collectives_gpu_check.sh BUILD_DIR [OUTPUT_DIR]     (OUTPUT_DIR defaults to $OUT, else a temp dir)
#  1. 2 and 4 ranks, every NCCL dtype, --collectives all, -c 1: every (collective, dtype)
#     measured with 0 wrong elements (tests/gpu/check_collectives.py reads results.json);
#     2 ranks with root 1, 4 ranks float32 with --root all (points for roots 0..3).
#     fp8 (float8e4m3, float8e5m2) too: its sums use inputs that keep every partial sum exact;
#     on a GPU older than sm_90 every fp8 point must be skipped with the compute-capability reason.
#  2. Reduction ops prod, max, min, avg with 4 ranks on reduce/allreduce/reducescatter over a
#     few dtypes (integer avg is NCCL's truncating divide); fp8 max and min (exact), fp8 avg
#     over 4 ranks (exact), fp8 prod (recorded as not checked, wrong = -1).
#  3. Forced ring/simple and ring/ll on broadcast and reduce reach NCCL (its TUNING lines); the
#     same configs on alltoall/gather are skipped with the point-to-point reason.
#  4. A point-to-point config group reaches the workers: NCCL's INFO line for
#     NCCL_P2P_NET_CHUNKSIZE in that group's worker logs, not in the default group's.
#  5. --p2p-impl both with 2 and 4 ranks, out-of-place and in-place: alltoall, gather and
#     scatter measured as native (ncclAlltoAll/ncclGather/ncclScatter) and grouped variants,
#     each with 0 wrong and its "impl" recorded; the default (native) records "native".
# CCTUNE_CHECK_PARTS (default "1 2 3 4 5") runs only the parts named.
# Exits 0 with "SKIP: <reason>" where nvidia-smi finds no GPU; 1 when a check fails.
export NCCL_NVLS_ENABLE=0  # never NVLS/multicast in tests
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
BUILD=$(cd "${1:?usage: collectives_gpu_check.sh BUILD_DIR [OUTPUT_DIR]}" && pwd)
OUTDIR=${2:-${OUT:-$(mktemp -d /tmp/cctune-collectives-gpu.XXXXXX)}}/collectives_gpu_check
command -v nvidia-smi >/dev/null 2>&1 || { echo "SKIP: nvidia-smi not found (no NVIDIA driver on this machine)"; exit 0; }
[[ $(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true) -ge 1 ]] || { echo "SKIP: nvidia-smi finds no GPU"; exit 0; }
CCTUNE=$BUILD/cctune
[[ -x "$CCTUNE" ]] || { echo "FAIL: $CCTUNE not found (build the cctune target)"; exit 1; }
[[ -f "$BUILD/libcctune-nccl.so" ]] || { echo "FAIL: $BUILD/libcctune-nccl.so not found (configure with -DCCTUNE_WITH_CUDA=ON)"; exit 1; }
rm -rf "$OUTDIR"; mkdir -p "$OUTDIR"
DTYPES=${CCTUNE_CHECK_DTYPES:-int8 uint8 int32 uint32 int64 uint64 float16 float32 float64 bfloat16 float8e4m3 float8e5m2}
# NCCL runs fp8 on sm_90 and newer only; older GPUs must skip every fp8 point with the reason.
CC=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader -i 0 2>/dev/null | tr -d ' .')
FP8_SKIP=()
[[ $CC =~ ^[0-9]+$ && $CC -lt 90 ]] && FP8_SKIP=(--skipped-because "compute capability 9.0")
ALL=allreduce,allgather,reducescatter,broadcast,reduce,alltoall,sendrecv,gather,scatter
FAILS=0
START=$(date +%s)
PARTS=" ${CCTUNE_CHECK_PARTS:-1 2 3 4 5} "
part() { [[ $PARTS == *" $1 "* ]]; }
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }

# sweep NAME K ARGS...: K workers sharing GPU 0, into $OUTDIR/NAME; rc in RC, output in NAME.log.
sweep() {
  local name=$1 k=$2; shift 2
  CUDA_VISIBLE_DEVICES=0 timeout 120 "$CCTUNE" sweep --backend nccl --gpus 1 --test-shared-gpu "$k" -c 1 -n 3 -w 1 \
    --min-iters 3 --max-time 0.02 --no-tune -o "$OUTDIR/$name" "$@" >"$OUTDIR/$name.log" 2>&1
  RC=$?
  if [[ $RC -ne 0 ]]; then
    echo "   sweep $name rc=$RC; last lines:"; tail -n 15 "$OUTDIR/$name.log" | sed 's/^/   | /'
    local w; for w in "$OUTDIR/$name"/workers/*.log; do [[ -f $w ]] && { echo "   $w:"; tail -n 5 "$w" | sed 's/^/   | /'; }; done
  fi
}
check() {  # NAME CHECKER-ARGS...: results of sweep NAME through check_collectives.py
  local name=$1; shift
  [[ $name == *float8* ]] && set -- "$@" "${FP8_SKIP[@]}"
  [[ $RC -eq 0 ]] || { fail "$name: sweep rc=$RC"; return 1; }
  local out
  out=$(python3 "$here/check_collectives.py" "$OUTDIR/$name/results.json" "$@" 2>&1)
  local rc=$?
  if [[ $rc -eq 0 ]]; then pass "$name: ${out#PASS: }"; else fail "$name:"; echo "${out//$'\n'/$'\n'   }"; fi
  return $rc
}

# 1. Every collective, every dtype, 2 and 4 ranks.
part 1 && for dt in $DTYPES; do
  sweep "n2_$dt" 2 --collectives all -d "$dt" -b 64 -e 64K -f 1024 --root 1
  check "n2_$dt" --nranks 2 --collectives "$ALL" --dtype "$dt" --roots 1
done
part 1 && for dt in $DTYPES; do
  roots=(--root 2); want=2
  [[ $dt == float32 ]] && { roots=(--root all); want=0,1,2,3; }
  sweep "n4_$dt" 4 --collectives all -d "$dt" -b 4K -e 4K "${roots[@]}"
  check "n4_$dt" --nranks 4 --collectives "$ALL" --dtype "$dt" --roots "$want"
done
echo "   (1. took $(( $(date +%s) - START )) s)"

# 2. Every reduction op NCCL has, with 4 ranks.
part 2 && for op in prod max min avg; do
  for dt in ${CCTUNE_CHECK_OP_DTYPES:-int8 uint32 float16 bfloat16}; do
    sweep "op_${op}_$dt" 4 --collectives reduce,allreduce,reducescatter -d "$dt" --op "$op" -b 1K -e 1K --root 3
    check "op_${op}_$dt" --nranks 4 --collectives reduce,allreduce,reducescatter --dtype "$dt" --op "$op" --roots 3
  done
done
# fp8: max/min are exact for any input; avg over 4 ranks divides by a power of two (exact);
# prod rounds in NCCL's order, so its points must say "not checked" (wrong = -1).
part 2 && for case in ${CCTUNE_CHECK_FP8_OPS:-max:float8e4m3 min:float8e4m3 max:float8e5m2 min:float8e5m2 avg:float8e5m2 prod:float8e4m3}; do
  op=${case%%:*} dt=${case#*:}
  sweep "op_${op}_$dt" 4 --collectives reduce,allreduce,reducescatter -d "$dt" --op "$op" -b 1K -e 1K --root 3
  check "op_${op}_$dt" --nranks 4 --collectives reduce,allreduce,reducescatter --dtype "$dt" --op "$op" --roots 3
done
echo "   (2. done at $(( $(date +%s) - START )) s)"

# 3. Forced configs: broadcast and reduce through the tuner plugin, p2p ones skipped.
part 3 && NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=TUNING sweep forced 2 --collectives broadcast,reduce,alltoall,gather \
  --configs ring/simple,ring/ll --placement out -b 64K -e 64K -d float32
part 3 && if check forced --nranks 2 --collectives broadcast,reduce --forced-p2p-skipped; then
  log=$(find "$OUTDIR/forced/workers" -name '*.r0.log' | head -n 1)
  for func in Broadcast Reduce; do
    for proto in SIMPLE LL; do
      line=$(grep -h "NCCL INFO $func: 65536 Bytes -> Algo RING proto $proto " "$log" | head -n 1)
      if [[ -n $line ]]; then pass "forced ring/${proto,,} reached NCCL for $func: ${line#*NCCL INFO }"
      else fail "forced ring/${proto,,}: no '$func: 65536 Bytes -> Algo RING proto $proto' TUNING line in $log"
        grep -h "NCCL INFO $func:" "$log" | head -n 3 | sed 's/^/   | /'; fi
    done
  done
  grep -q "NCCL INFO AllToAll\|NCCL INFO Gather" "$log" && echo "   note: NCCL printed TUNING lines for point-to-point calls"
fi

# 4. A point-to-point group setting reaches the workers of that group only.
part 4 && NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ENV sweep p2p_group 2 --collectives alltoall,sendrecv --placement out \
  -b 64K -e 64K --env-group p2p:NCCL_P2P_NET_CHUNKSIZE=262144
part 4 && if check p2p_group --nranks 2 --collectives alltoall,sendrecv; then
  want="NCCL_P2P_NET_CHUNKSIZE set by environment to 262144"
  seen=$(grep -l "$want" "$OUTDIR/p2p_group"/workers/p2p.r*.log 2>/dev/null | wc -l)
  others=0
  for w in "$OUTDIR/p2p_group"/workers/*.log; do
    [[ $w == */p2p.r* ]] || ! grep -q "$want" "$w" || others=$((others + 1))
  done
  if [[ $seen -eq 2 && $others -eq 0 ]]; then pass "p2p group: '$want' in both p2p workers' logs, in no other group's"
  else fail "p2p group: '$want' in $seen of 2 p2p worker logs, in $others other logs"
    ls "$OUTDIR/p2p_group/workers/"; grep -h "P2P\|CHUNKSIZE" "$OUTDIR/p2p_group"/workers/*.log | head -n 5; fi
fi

# 5. Both implementations of alltoall, gather and scatter, checked against the same layouts.
if part 5; then
  sweep impl_both_n2 2 --collectives all -d float32 -b 64 -e 64K -f 1024 --root 1 --p2p-impl both
  check impl_both_n2 --nranks 2 --collectives "$ALL" --dtype float32 --roots 1 --impls native,grouped
  sweep impl_both_n4 4 --collectives alltoall,gather,scatter -d bfloat16 -b 4K -e 4K --root 3 --p2p-impl both
  check impl_both_n4 --nranks 4 --collectives alltoall,gather,scatter --dtype bfloat16 --roots 3 --impls native,grouped
  sweep impl_default 2 --collectives alltoall,gather,scatter -d int32 -b 1K -e 1K
  check impl_default --nranks 2 --collectives alltoall,gather,scatter --dtype int32 --roots 0 --impls native
fi

echo "collectives_gpu_check: $FAILS failure(s) in $(( $(date +%s) - START )) s, output in $OUTDIR"
exit $(( FAILS > 0 ))
