#!/usr/bin/env bash
# cctune's NCCL batch_us next to an independent reference loop (tests/gpu/ref_collectives.cu,
# built as cctune-ref-collectives: a plain loop over one NCCL collective, nccl-tests' method and
# layouts, one process per GPU as cctune's workers: REF_PROCS below) for the nine collectives, float32 sum root 0,
# out-of-place and in-place (not alltoall/sendrecv in place: neither tool measures it), same
# sizes and -w/-n. alltoall, gather and scatter run as P2P_IMPL says, in both tools alike:
# native (ncclAlltoAll/ncclGather/ncclScatter), grouped (ncclSend/ncclRecv), or both (each a
# variant of its own; cctune --p2p-impl both).
# RUNS interleaved runs (reference, cctune, reference, cctune, ...); per variant and size the
# median of each tool's runs and a verdict: PASS when cctune's batch_us is within
# max(1 %, 0.3 us) of the reference's time.
#   bench/nccl_side_by_side.sh BUILD_DIR [OUTPUT_DIR]    (OUTPUT_DIR defaults to $OUT, else a temp dir)
# Env: COLLS (comma-separated, default all nine), PLACEMENTS (out,in), P2P_IMPL (both),
#      SIZES (bytes, comma-separated), ITERS (-n, default 20), WARMUP (-w, default 5),
#      RUNS (default 7: about 6 minutes for all nine on one H100 with one rank; a launch-bound
#      time moves by up to 3 us from one process to the next, for both tools, so few runs can
#      decide verdicts at small sizes: read the ci95 column there),
#      MAX_TIME (cctune --max-time, default 1), REF_BATCHES (batches of -n operations whose
#      median the reference reports, default 25: with 5, its own run-to-run spread at
#      launch-bound sizes on one H100 reached 0.7-2.5 us, over the tolerance),
#      PIN_CPUS (a CPU list both tools run on, via taskset; default none),
#      REF_PROCS (per-gpu: one reference process per GPU, the default; single: one process
#      driving all GPUs, nccl-tests' -g N).
# The ci95 column: a 95 % bootstrap interval (fixed seed, 2000 resamples of each tool's runs)
# of the difference of medians; where it holds 0, the runs cannot tell the two tools apart.
# Prints a compact ratio table (cctune / reference, per variant and size) at the end; the full
# table is OUTPUT_DIR/nccl_side_by_side/summary.txt, every run's output beside it.
# Exit: 0 when every size passes, 1 otherwise; 0 with "SKIP: <reason>" without a GPU.
set -euo pipefail
. "$(dirname "$0")/lib/side_by_side.sh"

BUILD=${1:?usage: nccl_side_by_side.sh BUILD_DIR [OUTPUT_DIR]}
OUTDIR=$(side_by_side_outdir "${2:-}" nccl_side_by_side /tmp/cctune-side-by-side.XXXXXX)
env_defaults COLLS=allreduce,allgather,reducescatter,broadcast,reduce,alltoall,sendrecv,gather,scatter
env_defaults PLACEMENTS=out,in P2P_IMPL=both SIZES=8,1024,65536,1048576,16777216,134217728
env_defaults ITERS=20 WARMUP=5 RUNS=7 REF_BATCHES=25 MAX_TIME=1 PIN_CPUS=none
PIN=()
[[ "$PIN_CPUS" == none ]] || PIN=(taskset -c "$PIN_CPUS")
case "$P2P_IMPL" in native) IMPLS=(native) ;; grouped) IMPLS=(grouped) ;; both) IMPLS=(native grouped) ;;
  *) echo "nccl_side_by_side: P2P_IMPL='$P2P_IMPL' is not native, grouped or both" >&2; exit 2 ;; esac
case "$PLACEMENTS" in out) CCT_PLACE=out ;; in) CCT_PLACE=in ;; out,in | in,out) CCT_PLACE=both ;;
  *) echo "nccl_side_by_side: PLACEMENTS='$PLACEMENTS' is not out, in or out,in" >&2; exit 2 ;; esac

if ! command -v nvidia-smi >/dev/null 2>&1; then echo "SKIP: nvidia-smi not found"; exit 0; fi
NGPU=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
if [[ "$NGPU" -lt 1 ]]; then echo "SKIP: nvidia-smi finds no GPU"; exit 0; fi
for f in "$BUILD/cctune" "$BUILD/cctune-ref-collectives"; do
  [[ -x "$f" ]] || { echo "FAIL: $f not found (configure with -DCCTUNE_WITH_CUDA=ON and build it)"; exit 1; }
done

# The reference's variants: collective, implementation ("-" where there is one), placement.
VARIANTS=()
IFS=, read -ra COLL_LIST <<<"$COLLS"
IFS=, read -ra PLACE_LIST <<<"$PLACEMENTS"
for coll in "${COLL_LIST[@]}"; do
  impls=(-)
  case "$coll" in alltoall | gather | scatter) impls=("${IMPLS[@]}") ;; esac
  for impl in "${impls[@]}"; do
    for place in "${PLACE_LIST[@]}"; do
      [[ "$place" == in && ( "$coll" == alltoall || "$coll" == sendrecv ) ]] && continue
      VARIANTS+=("$coll:$impl:$place")
    done
  done
done

# The reference's processes: one per GPU where there are several (REF_PROCS=per-gpu, the
# default), as cctune's workers and nccl-tests under mpirun -g 1 run; "single" drives every GPU
# from one process (ncclCommInitAll, nccl-tests' -g N), whose serial launches on 4xH200 made it
# 2-3.7x slower than one process per GPU at 1 MiB: not the same operation.
REF_PROCS=${REF_PROCS:-per-gpu}
case "$REF_PROCS" in per-gpu | single) ;; *) echo "nccl_side_by_side: REF_PROCS='$REF_PROCS' is not per-gpu or single" >&2; exit 2 ;; esac
peers=()
trap '[[ ${#peers[@]} -eq 0 ]] || kill "${peers[@]}" 2>/dev/null || true' EXIT  # rank 0 failed: no rank waits out its timeout
# run_ref PREFIX ARGS...: one reference run, CSV from rank 0 in PREFIX.csv, stderr in PREFIX[.R].stderr.
run_ref() {
  local prefix=$1; shift
  local procs=() r
  peers=()
  if [[ $REF_PROCS == per-gpu && $NGPU -gt 1 ]]; then
    rm -f "$OUTDIR/nccl.id"
    procs=(--rank 0 --nranks "$NGPU" --id-file "$OUTDIR/nccl.id")
    for r in $(seq 1 $((NGPU - 1))); do
      # shellcheck disable=SC2046
      timeout 300 "${PIN[@]}" "$BUILD/cctune-ref-collectives" "$@" --rank "$r" --nranks "$NGPU" --id-file "$OUTDIR/nccl.id" \
        -w "$WARMUP" -n "$ITERS" -r "$REF_BATCHES" $(tr ',' ' ' <<<"$SIZES") >/dev/null 2>"$prefix.$r.stderr" &
      peers+=($!)
    done
  fi
  # shellcheck disable=SC2046
  timeout 300 "${PIN[@]}" "$BUILD/cctune-ref-collectives" "$@" "${procs[@]}" -w "$WARMUP" -n "$ITERS" -r "$REF_BATCHES" \
    $(tr ',' ' ' <<<"$SIZES") >"$prefix.csv" 2>"$prefix.stderr" || return 1
  for r in "${!peers[@]}"; do
    wait "${peers[$r]}" || { cat "$prefix.$((r + 1)).stderr" >>"$prefix.stderr"; return 1; }
  done
  peers=()
}

echo "== $NGPU GPU(s), reference processes: $REF_PROCS, ${#VARIANTS[@]} variants, $RUNS interleaved runs, -w $WARMUP -n $ITERS, sizes $SIZES," \
  "p2p $P2P_IMPL, CPUs $PIN_CPUS; logs in $OUTDIR"
ref_variant() {  # RUN VARIANT: the reference loop on one variant
  local coll impl place args
  IFS=: read -r coll impl place <<<"$2"
  args=(--coll "$coll")
  [[ "$impl" == - ]] || args+=(--impl "$impl")
  [[ "$place" != in ]] || args+=(--in-place)
  run_ref "$OUTDIR/ref.$coll.$impl.$place.$1" "${args[@]}" \
    || { echo "FAIL: reference $2 failed (run $1):"; tail -n 5 "$OUTDIR/ref.$coll.$impl.$place.$1.stderr"; exit 1; }
}
cctune_sweep() {  # RUN: every variant in one sweep
  run_cctune_sweep "$1" "${PIN[@]}" "$BUILD/cctune" sweep --backend nccl --collectives "$COLLS" --placement "$CCT_PLACE" \
    --p2p-impl "$P2P_IMPL" -d float32 --sizes "$SIZES" -w "$WARMUP" -n "$ITERS" -c 0 --max-time "$MAX_TIME"
}
interleaved_runs ref_variant cctune_sweep

python3 "$(dirname "$0")/side_by_side_table.py" "$OUTDIR" "$RUNS" "${VARIANTS[@]}"
