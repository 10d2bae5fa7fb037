#!/usr/bin/env bash
# Plan agreement (issue 23 "Plan agreement", issue 24 F4): ranks launched with different plans
# used to wait forever in mismatched collectives (and NCCL rank 0 wrote `complete` from its own
# plan). Now every rank stops within seconds with ONE line naming the first difference, exit 2,
# and nothing is written. Node-local space files that differ (simulated with -wdir) are not a
# mismatch any more: rank 0 reads the space and sends its text to every rank, so the job runs
# rank 0's space.
set -uo pipefail
cctune=$1 out=$2
mpirun=("${MPIRUN:-mpirun}" --allow-run-as-root --oversubscribe)
rm -rf "$out"; mkdir -p "$out"
failures=0
fail() { echo "FAIL $*"; failures=$((failures+1)); }

# expect_mismatch NAME PATTERN -- MPMD ARGS...: rc 2 within 10 s, one error line with PATTERN.
expect_mismatch() {
  local name=$1 pattern=$2; shift 3
  local t0 t1 err rc
  t0=$(date +%s.%N)
  err=$(timeout -s KILL 60 "$@" 2>&1 >/dev/null); rc=$?
  t1=$(date +%s.%N)
  local secs; secs=$(echo "$t1 - $t0" | bc)
  local lines; lines=$(printf '%s\n' "$err" | grep -c 'cctune: error:')
  if [[ $rc -ne 2 ]] || [[ $lines -ne 1 ]] || ! grep -q -- "$pattern" <<<"$err" || ! grep -q "Fix: launch every rank with the same arguments" <<<"$err"; then
    fail "$name: rc=$rc (want 2) after ${secs}s, stderr: $err"
  elif (( $(echo "$secs >= 10" | bc) )); then
    fail "$name: took ${secs}s (want under 10 s)"
  else
    echo "ok   $name (${secs}s): $err"
  fi
}

sweep=("$cctune" sweep --backend mpi -c 0 -n 2 -w 1 --min-iters 2 --max-time 0.01)
# The issue's case: two different -e values.
expect_mismatch mpmd-max-bytes "plan mismatch: rank 1 has sizes_bytes 10 entries (last 4096), rank 0 has 8 entries (last 1024)" -- \
  "${mpirun[@]}" -np 1 "${sweep[@]}" -e 1K -o "$out/a" : -np 1 "${sweep[@]}" -e 4K -o "$out/a"
# The review's reproduction: different -e and --collectives (the first key in order is named).
expect_mismatch mpmd-collectives 'plan mismatch: rank 1 has collectives\[0\] "allgather", rank 0 has "allreduce"' -- \
  "${mpirun[@]}" -np 1 "${sweep[@]}" -e 1K --collectives allreduce -o "$out/a" : -np 1 "${sweep[@]}" -e 4K --collectives allgather -o "$out/a"
# Three ranks, the last one differs: still one line, naming rank 2.
expect_mismatch mpmd-third-rank "plan mismatch: rank 2 has iters 3, rank 0 has 2" -- \
  "${mpirun[@]}" -np 2 "${sweep[@]}" -e 1K -o "$out/a" : -np 1 "${sweep[@]}" -e 1K -n 3 -o "$out/a"
[[ ! -e $out/a/results.json ]] || fail "results.json written despite the mismatch"

# Node-local space files that differ, same argv (NCCL supervisors with selftest workers).
space() {  # space DIR SIZES GROUPS
  mkdir -p "$1"
  cat > "$1/s.json" <<J
{"schema": "cctune.space/1", "name": "local", "collectives": ["allreduce"], "sizes": {"list": [$2]}, "dtype": "float32",
 "algorithms": ["auto"], "protocols": ["auto"], "channels": [0], "groups": [$3],
 "measure": {"warmup": 1, "min_iters": 2, "max_time_s": 0.01, "target_noise": 0.5}}
J
}
space "$out/wdA" '8, 16, 32, 64, 128, 256, 512, 1024' '{"name": "default", "env": {}}'
space "$out/wdB" '8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536' \
  '{"name": "default", "env": {}}, {"name": "two", "env": {"NCCL_BUFFSIZE": "8388608"}}'
env=(-x CCTUNE_NCCL_MODULE="$(dirname "$cctune")/tests/libcctune-selftest.so" -x CCTUNE_SELFTEST_GPUS=2)
t0=$(date +%s)
timeout -s KILL 120 "${mpirun[@]}" "${env[@]}" -np 1 -wdir "$out/wdA" "$cctune" sweep --space s.json -o "$out/mpsp" --test-shared-gpu 1 --no-tune : \
  "${env[@]}" -np 1 -wdir "$out/wdB" "$cctune" sweep --space s.json -o "$out/mpsp" --test-shared-gpu 1 --no-tune \
  >"$out/space.log" 2>&1
rc=$?
echo "space files that differ: rc=$rc after $(( $(date +%s) - t0 ))s"
if [[ $rc -ne 0 ]]; then
  fail "node-local spaces: rc=$rc (want 0: rank 0's space runs on every rank)"; tail -20 "$out/space.log"
else
  python3 - "$out/mpsp/results.json" <<'P' || fail "node-local spaces: results.json is not rank 0's space"
import json, sys
r = json.load(open(sys.argv[1]))
sizes = sorted({p["size_bytes"] for run in r["runs"] for p in run["points"]})
groups = [g["name"] for g in r["meta"]["settings"]["space"]["groups"]]
assert r["meta"]["status"] == "complete", r["meta"]["status"]
assert groups == ["default"], groups
assert sizes == [8, 16, 32, 64, 128, 256, 512, 1024], sizes
print("ok   node-local spaces: rank 0's space ran on both ranks:", groups, len(sizes), "sizes")
P
fi
[[ $failures -eq 0 ]] && echo "plan_mismatch_test: all ok" || { echo "plan_mismatch_test: $failures failure(s)"; exit 1; }
