#!/usr/bin/env bash
# cctune diagnose on inputs it must refuse or plan around, under a real mpirun (MPI backend):
# the dry run of 1024 nodes in under a second; a bad --pairs; --nodes without --dry-run; one
# node (runs the intra-node stage, says which stages it skips and why); a baseline from another
# cluster (node count, GPUs per node, host names): one-line refusal naming the difference, exit 2.
# Usage: bad_inputs_test.sh CCTUNE MPIEXEC
set -euo pipefail
cctune=$1 mpiexec=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fail() { echo "FAIL: $*"; exit 1; }

start=$(date +%s%N)
"$cctune" diagnose --dry-run --nodes 1024 --gpus 8 > "$work/plan.txt"
ms=$(( ($(date +%s%N) - start) / 1000000 ))
cat "$work/plan.txt"
echo "dry run of 1024 nodes x 8 GPUs: $ms ms"
(( ms < 1000 )) || fail "the dry run took $ms ms"
grep -q "8192 rank(s)" "$work/plan.txt" || fail "the plan does not count 8192 ranks"
grep -Eq "^   pair probe +2 " "$work/plan.txt" || fail "auto pairs on 1024 nodes are not ring's 2 rounds"
"$cctune" diagnose --dry-run --nodes 8 --pairs random:3 | grep -Eq "^   pair probe +3 " || fail "random:3 is not 3 rounds"

expect_usage() {  # expect_usage WHAT PATTERN CMD...: exit 2, one line on stderr matching PATTERN
  local what=$1 pattern=$2; shift 2
  set +e
  "$@" > "$work/out" 2> "$work/err"
  local rc=$?
  set -e
  local lines
  lines=$(grep -c "cctune: error" "$work/err" || true)
  echo "$what: exit $rc: $(grep "cctune: error" "$work/err" | head -1)"
  [[ $rc -eq 2 ]] || fail "$what: exit $rc, expected 2"
  [[ $lines -eq 1 ]] || fail "$what: $lines error lines, expected 1"
  grep -q -- "$pattern" "$work/err" || fail "$what: the error does not say '$pattern'"
}
expect_usage "--pairs bogus" "--pairs 'bogus'" "$cctune" diagnose --dry-run --nodes 4 --pairs bogus
expect_usage "random:K beyond the rounds" "random:9" "$cctune" diagnose --dry-run --nodes 4 --pairs random:9
expect_usage "--nodes without --dry-run" "--dry-run" "$cctune" diagnose --backend mpi --nodes 4

mpi=("$mpiexec" --oversubscribe)
"${mpi[@]}" -np 2 "$cctune" diagnose --backend mpi --bandwidth-size 256K --max-time 0.3 -o "$work/one" > "$work/one.out"
cat "$work/one.out"
for stage in "pair probe" "pair collective" "all nodes"; do
  grep -q "stage $stage: skipped: one node: the network needs two or more" "$work/one.out" || fail "'$stage' skip not said"
done
grep -q "^verdict: " "$work/one.out" || fail "no verdict"

python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
d = json.load(open(f"{work}/one/diagnosis.json"))
assert d["cluster"]["nodes"] == 1 and d["cluster"]["gpus_per_node"] == 2, d["cluster"]
other = dict(d, cluster=dict(d["cluster"], hosts=["elsewhere"]))
json.dump(other, open(f"{work}/other_host.json", "w"))
PY
expect_usage "baseline from 3 GPUs per node" "2 GPU(s) per node there, 3 here" \
  "${mpi[@]}" -np 3 "$cctune" diagnose --backend mpi --bandwidth-size 256K --max-time 0.3 -o "$work/three" --baseline "$work/one/diagnosis.json"
expect_usage "baseline from other hosts" "host $(hostname) is not in it" \
  "${mpi[@]}" -np 2 "$cctune" diagnose --backend mpi --bandwidth-size 256K --max-time 0.3 -o "$work/two" --baseline "$work/other_host.json"
echo '{"schema": "cctune.results/2"}' > "$work/results.json"
expect_usage "baseline not a diagnosis" "not a cctune diagnosis" \
  "${mpi[@]}" -np 2 "$cctune" diagnose --backend mpi --bandwidth-size 256K -o "$work/two" --baseline "$work/results.json"
expect_usage "baseline not JSON" "is not JSON" \
  "${mpi[@]}" -np 2 "$cctune" diagnose --backend mpi --bandwidth-size 256K -o "$work/two" --baseline "$work/plan.txt"
python3 -c 'print("[" * 100000)' > "$work/deep.json"
expect_usage "baseline nested too deep" "deeper than 64 levels" \
  "${mpi[@]}" -np 2 "$cctune" diagnose --backend mpi --bandwidth-size 256K -o "$work/two" --baseline "$work/deep.json"
expect_usage "baseline not a regular file" "not a regular file" \
  "${mpi[@]}" -np 2 "$cctune" diagnose --backend mpi --bandwidth-size 256K -o "$work/two" --baseline /dev/zero
# The same cluster's own diagnosis is a baseline it accepts (0 or 5: sub-microsecond times on
# a loaded CI host may well drift more than the baseline rule's 15 %).
set +e
"${mpi[@]}" -np 2 "$cctune" diagnose --backend mpi --bandwidth-size 256K --max-time 0.3 -o "$work/again" \
  --baseline "$work/one/diagnosis.json" > "$work/again.out" 2>&1
rc=$?
set -e
[[ $rc -eq 0 || $rc -eq 5 ]] || fail "its own baseline: exit $rc"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["baseline"] == sys.argv[2], d["baseline"]' \
  "$work/again/diagnosis.json" "$work/one/diagnosis.json"
echo OK
