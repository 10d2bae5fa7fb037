# What both side-by-side benches set up alike (nccl_side_by_side.sh: cctune against a reference
# loop; nccl_tests_side_by_side.sh: against nccl-tests). Sourced, not run.
# shellcheck shell=bash
export NCCL_NVLS_ENABLE=0  # never NVLink multicast
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# env_defaults NAME=VALUE...: each NAME keeps its value from the environment unless that is
# empty, else takes VALUE (as NAME=${NAME:-VALUE} would), for the settings a bench's header lists.
env_defaults() {
  local pair name
  for pair in "$@"; do
    name=${pair%%=*}
    [[ -n "${!name-}" ]] || printf -v "$name" '%s' "${pair#*=}"
  done
}

# side_by_side_outdir GIVEN NAME TEMPLATE: prints GIVEN/NAME (GIVEN: the bench's OUTPUT_DIR
# argument, else $OUT, else a new directory from mktemp's TEMPLATE), created empty.
side_by_side_outdir() {
  local dir=${1:-${OUT:-}}
  [[ -n "$dir" ]] || dir=$(mktemp -d "$3")
  rm -rf "${dir:?}/$2" && mkdir -p "$dir/$2" && echo "$dir/$2"
}

# interleaved_runs REFERENCE SWEEP: RUNS rounds, each `REFERENCE RUN VARIANT` for every entry of
# VARIANTS and then `SWEEP RUN`, so that both tools see the same drift of the machine; a line
# after each round. Either function exits the bench on a failure.
interleaved_runs() {
  local run v start=$SECONDS
  for run in $(seq 1 "$RUNS"); do
    for v in "${VARIANTS[@]}"; do "$1" "$run" "$v"; done
    "$2" "$run"
    echo "   run $run of $RUNS done ($((SECONDS - start)) s)"
  done
}

# run_cctune_sweep RUN COMMAND...: one cctune sweep, COMMAND... -o OUTDIR/cctune.RUN, its output
# beside it; on a failure its last lines, and the bench exits 1.
run_cctune_sweep() {
  local run=$1
  shift
  timeout 600 "$@" -o "$OUTDIR/cctune.$run" >"$OUTDIR/cctune.$run.stdout" 2>"$OUTDIR/cctune.$run.stderr" \
    || { echo "FAIL: cctune sweep failed (run $run):"; tail -n 5 "$OUTDIR/cctune.$run.stderr"; exit 1; }
}
