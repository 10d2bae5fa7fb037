#!/usr/bin/env bash
# cctune's NCCL batch_us next to the real nccl-tests (NVIDIA/nccl-tests, built by you with MPI=1:
# docs/PERFORMANCE.md, "Against nccl-tests itself"), one process per GPU for both: nccl-tests under
# `mpirun -np NGPUS` with -g 1, cctune's sweep with one worker per GPU. The nine collectives (COLLS),
# float32 sum root 0, out-of-place (nccl-tests' "out-of-place time" column; nccl-tests always runs
# in place too, which is not compared), the same sizes, -w and -n. Data: cctune always writes its
# inputs and runs with -c 0 (no check); nccl-tests runs with -c NT_CHECK (default 1, its own default:
# written inputs, results checked outside the timed batches; 0 times buffers never written, which
# moves alltoall by 4-7 % on H200: docs/PERFORMANCE.md).
# alltoall, gather and scatter as nccl-tests runs them: native calls when it was built and runs
# with NCCL >= 2.28 (P2P_IMPL=native, the default; the parser fails naming P2P_IMPL=grouped when
# the nccl-tests output says otherwise).
# RUNS interleaved runs (nccl-tests for each collective, then one cctune sweep of them all, ...);
# per collective and size the median of each tool's runs, their ratio cctune / nccl-tests, and a
# verdict: PASS when cctune's batch_us is within max(1 %, 0.3 us) of nccl-tests' time, with a
# 95 % bootstrap interval of the difference (bench/side_by_side_table.py, as nccl_side_by_side.sh).
#   bench/nccl_tests_side_by_side.sh NCCL_TESTS_DIR [OUTPUT_DIR]   (OUTPUT_DIR defaults to $OUT, else a temp dir)
# NCCL_TESTS_DIR holds all_reduce_perf ... sendrecv_perf (the binaries COLLS needs; NT_SUFFIX for a
# build with NAME_SUFFIX, e.g. _mpi).
# Env: COLLS (comma-separated, default all nine), SIZES (bytes, comma-separated, ascending; each a
#      multiple of 16 B x NGPUS: nccl-tests rounds a rank's block down to 16 B, cctune to one element,
#      so other sizes would not be the same operation; a geometric series with an integer factor runs
#      as one nccl-tests process per collective (-b/-e/-f), any other list as one per size),
#      ITERS (-n, default 200: nccl-tests' batch starts right after a barrier, a cost per batch
#      of 20-60 us that -n 20 spreads as 1-3 us over every call; docs/PERFORMANCE.md), WARMUP (-w, default 5), RUNS (default 5),
#      NT_CYCLES (nccl-tests -N: batches per size in one process, whose median is that run's figure,
#      as cctune's is the median of its rounds; 1 is nccl-tests' own default; default 10),
#      MAX_TIME (cctune --max-time, default 1), NGPUS (default: every GPU nvidia-smi lists),
#      CCTUNE (default: build/cctune beside this script's repository), P2P_IMPL (native or grouped),
#      NT_SPAN (series: one nccl-tests process per collective when SIZES allow, the default; size:
#      one process per size, so that nccl-tests' buffers are exactly each size's: docs/PERFORMANCE.md
#      says why that matters below the largest size), NT_CHECK (nccl-tests -c: 1, the default, or 0).
# Prints a ratio table (cctune / nccl-tests per collective and size) at the end; the full table is
# OUTPUT_DIR/nccl_tests_side_by_side/summary.txt, every run's output beside it.
# Exit: 0 when every size passes, 1 otherwise (or when an nccl-tests output line cannot be read,
# or a size is missing from it), 2 on a bad setting; 0 with "SKIP: <reason>" without a GPU.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/side_by_side.sh"
NT_DIR=${1:?usage: bench/nccl_tests_side_by_side.sh NCCL_TESTS_DIR [OUTPUT_DIR]}
env_defaults COLLS=allreduce,allgather,reducescatter,broadcast,reduce,alltoall,gather,scatter,sendrecv
env_defaults SIZES=256,4096,65536,1048576,16777216,268435456 P2P_IMPL=native NT_SUFFIX= NT_SPAN=series
env_defaults ITERS=200 WARMUP=5 RUNS=5 NT_CYCLES=10 NT_CHECK=1 MAX_TIME=1 CCTUNE="$here/../build/cctune"
bad() { echo "nccl_tests_side_by_side: $*" >&2; exit 2; }
case "$P2P_IMPL" in native | grouped) ;; *) bad "P2P_IMPL='$P2P_IMPL' is not native or grouped" ;; esac
case "$NT_CHECK" in 0 | 1) ;; *) bad "NT_CHECK='$NT_CHECK' is not 0 or 1" ;; esac
case "$NT_SPAN" in series | size) ;; *) bad "NT_SPAN='$NT_SPAN' is not series or size" ;; esac

declare -A BIN=([allreduce]=all_reduce [allgather]=all_gather [reducescatter]=reduce_scatter [broadcast]=broadcast
  [reduce]=reduce [alltoall]=alltoall [gather]=gather [scatter]=scatter [sendrecv]=sendrecv)
IFS=, read -ra COLL_LIST <<<"$COLLS"
for coll in "${COLL_LIST[@]}"; do
  [[ -n "${BIN[$coll]:-}" ]] || bad "COLLS: '$coll' is not one of ${!BIN[*]}"
  f="$NT_DIR/${BIN[$coll]}_perf$NT_SUFFIX"
  [[ -x "$f" ]] || { echo "FAIL: NCCL_TESTS_DIR=$NT_DIR has no ${BIN[$coll]}_perf$NT_SUFFIX (build NVIDIA/nccl-tests with MPI=1 and pass its build directory)"; exit 1; }
done
NT_DIR=$(cd "$NT_DIR" && pwd)  # mpirun is given the binaries' absolute paths

if ! command -v nvidia-smi >/dev/null 2>&1; then echo "SKIP: nvidia-smi not found"; exit 0; fi
NGPU=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
if [[ "$NGPU" -lt 1 ]]; then echo "SKIP: nvidia-smi finds no GPU"; exit 0; fi
NGPUS=${NGPUS:-$NGPU}
[[ "$NGPUS" =~ ^[1-9][0-9]*$ && "$NGPUS" -le "$NGPU" ]] || bad "NGPUS='$NGPUS' is not 1..$NGPU"
[[ -x "$CCTUNE" ]] || { echo "FAIL: $CCTUNE not found (build cctune with -DCCTUNE_WITH_CUDA=ON, or set CCTUNE)"; exit 1; }
command -v mpirun >/dev/null 2>&1 || { echo "FAIL: mpirun not found (nccl-tests runs one process per GPU under it)"; exit 1; }
for coll in "${COLL_LIST[@]}"; do  # a library the loader cannot find (libcudart, libnccl, libmpi): say which, once
  missing=$(ldd "$NT_DIR/${BIN[$coll]}_perf$NT_SUFFIX" 2>/dev/null | awk '/not found/ {print $1}' | paste -sd, -) || true
  [[ -z "$missing" ]] || { echo "FAIL: NCCL_TESTS_DIR=$NT_DIR: ${BIN[$coll]}_perf$NT_SUFFIX needs $missing, which the loader does not find (set LD_LIBRARY_PATH)"; exit 1; }
done

# The sizes, and the nccl-tests runs that cover them: -b FIRST -e LAST -f FACTOR when they are a
# geometric series with an integer factor (or one size), else one run per size.
IFS=, read -ra SIZE_LIST <<<"$SIZES"
for s in "${SIZE_LIST[@]}"; do
  [[ "$s" =~ ^[1-9][0-9]*$ ]] || bad "SIZES: '$s' is not a size in bytes"
  (( s % (16 * NGPUS) == 0 )) || bad "SIZES: $s is not a multiple of 16 B x $NGPUS GPUs (nccl-tests' allgather, alltoall, ... would move $((s - s % (16 * NGPUS))) B, cctune's a different amount)"
done
factor=0
if [[ ${#SIZE_LIST[@]} -eq 1 ]]; then factor=2; else
  factor=$(( SIZE_LIST[1] / SIZE_LIST[0] ))
  for i in $(seq 1 $((${#SIZE_LIST[@]} - 1))); do
    (( SIZE_LIST[i] > SIZE_LIST[i - 1] )) || bad "SIZES must ascend ($SIZES)"
    (( factor >= 2 && SIZE_LIST[i] == SIZE_LIST[i - 1] * factor )) || factor=0
  done
fi
SPANS=()  # nccl-tests -b:-e:-f per run
if (( factor > 0 )) && [[ $NT_SPAN == series ]]; then SPANS=("${SIZE_LIST[0]}:${SIZE_LIST[-1]}:$factor")
else for s in "${SIZE_LIST[@]}"; do SPANS+=("$s:$s:2"); done; fi

OUTDIR=$(side_by_side_outdir "${2:-}" nccl_tests_side_by_side /tmp/cctune-nccl-tests.XXXXXX)
mpi=(mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$NGPUS" -x NCCL_NVLS_ENABLE)
[[ -z "${LD_LIBRARY_PATH:-}" ]] || mpi+=(-x LD_LIBRARY_PATH)
{ cat "$NT_DIR/VERSION.txt"; nvidia-smi -L; mpirun --version | head -n 1; "$CCTUNE" --version; } >"$OUTDIR/env.txt" 2>&1 || true

VARIANTS=()
for coll in "${COLL_LIST[@]}"; do
  case "$coll" in alltoall | gather | scatter) VARIANTS+=("$coll:$P2P_IMPL:out") ;; *) VARIANTS+=("$coll:-:out") ;; esac
done

# run_nccl_tests COLL IMPL RUN: every span of one collective, then its table as ref.COLL.IMPL.out.RUN.csv.
run_nccl_tests() {
  local coll=$1 impl=$2 run=$3 span b e f i=0 files=()
  for span in "${SPANS[@]}"; do
    IFS=: read -r b e f <<<"$span"
    i=$((i + 1))
    local log="$OUTDIR/nccl-tests.$coll.$run.$i"
    files+=("$log.stdout")
    timeout 300 "${mpi[@]}" "$NT_DIR/${BIN[$coll]}_perf$NT_SUFFIX" -g 1 -t 1 -b "$b" -e "$e" -f "$f" -w "$WARMUP" \
      -n "$ITERS" -N "$NT_CYCLES" -m 1 -d float -o sum -r 0 -c "$NT_CHECK" -a 1 -z 0 -G 0 >"$log.stdout" 2>"$log.stderr" \
      || { echo "FAIL: nccl-tests ${BIN[$coll]}_perf failed (run $run, -b $b -e $e), exit $?:"; tail -n 5 "$log.stderr" "$log.stdout"; return 1; }
  done
  python3 "$here/nccl_tests_output.py" --coll "$coll" --nranks "$NGPUS" --warmup "$WARMUP" --iters "$ITERS" \
    --cycles "$NT_CYCLES" --sizes "$SIZES" --impl "$impl" --csv "$OUTDIR/ref.$coll.$impl.out.$run.csv" "${files[@]}" \
    >"$OUTDIR/nccl-tests.$coll.$run.parse" || { echo "FAIL: nccl-tests ${BIN[$coll]}_perf's output (run $run):"; cat "$OUTDIR/nccl-tests.$coll.$run.parse"; return 1; }
  [[ $run -gt 1 ]] || sed 's/^/   /' "$OUTDIR/nccl-tests.$coll.$run.parse"  # versions, and NCCL lines left out of the table
}

echo "== $NGPUS GPU(s), $RUNS interleaved runs, ${#COLL_LIST[@]} collectives, -w $WARMUP -n $ITERS, nccl-tests -N $NT_CYCLES" \
  "(${#SPANS[@]} process(es) per collective), sizes $SIZES, p2p $P2P_IMPL; logs in $OUTDIR"
nccl_tests_variant() {  # RUN VARIANT
  local coll impl
  IFS=: read -r coll impl _ <<<"$2"
  run_nccl_tests "$coll" "$impl" "$1" || exit 1
}
cctune_sweep() {  # RUN: every collective in one sweep
  run_cctune_sweep "$1" "$CCTUNE" sweep --backend nccl --gpus "$NGPUS" --collectives "$COLLS" --placement out --p2p-impl "$P2P_IMPL" \
    -d float32 --op sum --root 0 --sizes "$SIZES" -w "$WARMUP" -n "$ITERS" -c 0 --max-time "$MAX_TIME" --no-tune
}
interleaved_runs nccl_tests_variant cctune_sweep

python3 "$here/side_by_side_table.py" --ref-name nccl-tests --name nccl_tests_side_by_side "$OUTDIR" "$RUNS" "${VARIANTS[@]}"
