#!/usr/bin/env bash
# Every bad input gives one line "cctune: error: ... Fix: ..." on stderr and a non-zero
# exit, before anything is measured (no results.json appears).
set -uo pipefail
cctune=$1 out=$2
rm -rf "$out"; mkdir -p "$out"
failures=0
expect_error() {  # expect_error NAME EXPECTED_CODE PATTERN -- ARGS...
  local name=$1 code=$2 pattern=$3; shift 4
  local err rc
  err=$("$@" 2>&1 >/dev/null); rc=$?
  local lines; lines=$(printf '%s\n' "$err" | grep -c 'cctune: error:')
  if [[ $rc -ne $code ]] || [[ $lines -ne 1 ]] || ! grep -q -- "$pattern" <<<"$err" || ! grep -q "Fix:" <<<"$err"; then
    echo "FAIL $name: rc=$rc (want $code), stderr: $err"; failures=$((failures+1))
  else
    echo "ok   $name: $err"
  fi
}
sweep=("$cctune" sweep --backend mpi)
expect_error min-above-max 2 "larger than --max-bytes" -- "${sweep[@]}" -b 1M -e 8 -o "$out/a"
expect_error unparsable-size 2 "'12Q' is not a size" -- "${sweep[@]}" -e 12Q -o "$out/a"
expect_error unknown-collective 2 "unknown collective 'allscatter'" -- "${sweep[@]}" --collectives allreduce,allscatter -o "$out/a"
expect_error unknown-dtype 2 "unknown data type 'float7'" -- "${sweep[@]}" --dtype float7 -o "$out/a"
expect_error size-too-large 2 "of host memory" -- "${sweep[@]}" -b 8 -e 4T -o "$out/a"
touch "$out/file"
expect_error unwritable-output 3 "output directory" -- "${sweep[@]}" -o "$out/file/sub"
expect_error bad-backend 2 "--backend 'gloo' is unknown" -- "${sweep[@]}" --backend gloo -o "$out/a"
expect_error unknown-option 2 "--bogus" -- "${sweep[@]}" --bogus -o "$out/a"
expect_error mpi-min-above-max 2 "larger than --max-bytes" -- "${MPIRUN:-mpirun}" --allow-run-as-root --oversubscribe -np 2 "$cctune" sweep --backend mpi -b 1M -e 8 -o "$out/a"
expect_error bad-root 2 "--root 'first' is not a rank" -- "${sweep[@]}" --root first -o "$out/a"
expect_error root-beyond-ranks 2 "--root 9 is not a rank of this 4-rank job" -- "${MPIRUN:-mpirun}" --allow-run-as-root --oversubscribe -np 4 "$cctune" sweep --backend mpi --collectives all --root 9 -o "$out/a"
# A combination the backend cannot run, refused on every rank alike before anything is launched.
mpi4=("${MPIRUN:-mpirun}" --allow-run-as-root --oversubscribe -np 4 "$cctune" sweep --backend mpi)
expect_error op-avg-on-mpi 2 "--op avg: the mpi backend has no avg reduction .*Fix: use --backend nccl or another --op" -- "${mpi4[@]}" --op avg -o "$out/a"
expect_error bfloat16-on-mpi 2 "-d bfloat16: the mpi backend has no bfloat16 type" -- "${mpi4[@]}" -d float32,bfloat16 --collectives all -o "$out/a"
expect_error nonsense-dtype 2 "-d/--dtype: unknown data type 'nonsense'" -- "${mpi4[@]}" -d int32,nonsense -o "$out/a"
expect_error nonsense-op 2 "--op: unknown reduction op 'mean'" -- "${sweep[@]}" --op sum,mean -o "$out/a"
# Issue 24 F16: values that pass a `<` test (inf, nan) and an empty --sizes are named, with the
# flag and the plan key, not blamed on "the same cctune build".
expect_error max-time-inf 2 "--max-time (max_time_s) is inf, not a finite number above 0" -- "${sweep[@]}" --max-time inf -o "$out/a"
expect_error target-noise-nan 2 "--target-noise (target_noise) is nan" -- "${sweep[@]}" --target-noise nan -o "$out/a"
expect_error empty-sizes 2 "--sizes '' lists no size" -- "${sweep[@]}" --sizes '' -o "$out/a"
selftest=(env CCTUNE_NCCL_MODULE="$(dirname "$cctune")/tests/libcctune-selftest.so" CCTUNE_SELFTEST_GPUS=2 "$cctune" sweep --backend nccl --test-shared-gpu 1)
expect_error point-timeout-inf 2 "--point-timeout (point_timeout_s) is inf, not a finite number above 0" -- "${selftest[@]}" --point-timeout inf -o "$out/a"
expect_error group-timeout-nan 2 "--group-timeout (group_timeout_s) is nan, not a finite number of at least 0" -- "${selftest[@]}" --group-timeout nan -o "$out/a"
# Issue 24 F6: a 446-byte space that plans ~10^9 points is refused in one line, in bounded time
# and memory (it used to allocate until bad_alloc: 3.2 GB in 5.7 s under this limit).
cat > "$out/small_big_space.json" <<'J'
{"schema":"cctune.space/1","name":"tiny","collectives":["allreduce","allgather","reducescatter","broadcast","reduce","alltoall","sendrecv","gather","scatter"],
 "sizes":{"min":1,"max":"1T","factor":1.0003},"dtype":["int8","uint8","int32","uint32","int64","uint64","float16","float32","float64","bfloat16","float8e4m3","float8e5m2"],
 "algorithms":["auto","ring","tree"],"protocols":["auto","ll","ll128","simple"],"channels":[0,1,2,4,8,16,32,64]}
J
# (The command line's plan check counts it first: its 9 collectives x 12 types x ~92 000 sizes;
# plan_space's own count, for a space whose configs multiply it, is in tuning_space_test.)
expect_error space-too-many-points 2 "plans [0-9]* points, more than .*10000000" -- \
  bash -c 'ulimit -v 6000000; exec timeout 60 "$0" sweep --space "$1" --dry-run --gpus 1' "$cctune" "$out/small_big_space.json"
# A space size list longer than the command line allows: refused naming the key, also in a dry run.
python3 -c 'import json,sys; json.dump({"schema":"cctune.space/1","name":"long","collectives":["allreduce"],"sizes":{"list":list(range(1,300001))},"algorithms":["auto"],"protocols":["auto"],"channels":[0]}, open(sys.argv[1],"w"))' "$out/long.json"
expect_error space-long-size-list 2 'key "sizes.list": has 300000 sizes, more than 100000' -- "$cctune" sweep --space "$out/long.json" --dry-run -o "$out/a"
[[ ! -e $out/a/results.json ]] || { echo "FAIL: results.json written despite errors"; failures=$((failures+1)); }
[[ $failures -eq 0 ]] && echo "bad_inputs_test: all ok" || { echo "bad_inputs_test: $failures failure(s)"; exit 1; }
