#!/usr/bin/env bash
# One sweep per output directory (review 2026-11-24, F13): a second sweep into the -o of a
# running one is refused in one line (exit 3) and leaves the first one's results whole; a
# plain re-run into a directory that holds results.json is refused (exit 2) and names
# --resume and --force; --force replaces it.
#
# usage: output_dir_test.sh CCTUNE WORKDIR
set -euo pipefail
cctune=$1 work=$2
rm -rf "$work" && mkdir -p "$work"
fail() { echo "output_dir_test: FAIL: $*"; exit 1; }
one_line() { [[ $(grep -c . "$1") -eq 1 ]] || { cat "$1"; fail "$2: expected one line on stderr"; }; }

# 1. Two sweeps at once: the first measures long enough for the second to start.
"$cctune" sweep --backend mpi -e 64K --collectives allreduce --max-time 0.3 --target-noise 1e-12 --no-tune -o "$work/same" \
  > "$work/first.log" 2>&1 & first=$!
for _ in $(seq 1 300); do [[ -s $work/same/results.journal ]] && break; sleep 0.1; done
set +e; "$cctune" sweep --backend mpi -e 64K --collectives allgather --no-tune -o "$work/same" > /dev/null 2> "$work/second.err"; rc=$?; set -e
[[ $rc -eq 3 ]] || { cat "$work/second.err"; fail "second sweep into a busy -o exited $rc, expected 3"; }
one_line "$work/second.err" "busy -o"
grep -q "another cctune (pid $first) is writing" "$work/second.err" || { cat "$work/second.err"; fail "refusal does not name the first sweep"; }
wait $first || fail "the first sweep failed: $(tail -3 "$work/first.log")"
python3 - "$work/same/results.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
colls = {p["collective"] for r in d["runs"] for p in r["points"]}
assert d["meta"]["status"] == "complete" and colls == {"allreduce"}, (d["meta"]["status"], colls)
PY

# 2. A plain re-run into a directory with results: refused, the results untouched.
before=$(sha256sum < "$work/same/results.json")
set +e; "$cctune" sweep --backend mpi -e 1K --no-tune -o "$work/same" > /dev/null 2> "$work/rerun.err"; rc=$?; set -e
[[ $rc -eq 2 ]] || { cat "$work/rerun.err"; fail "re-run into a -o with results exited $rc, expected 2"; }
one_line "$work/rerun.err" "re-run"
grep -q -- "--resume" "$work/rerun.err" && grep -q -- "--force" "$work/rerun.err" || fail "refusal names neither --resume nor --force: $(cat "$work/rerun.err")"
[[ $(sha256sum < "$work/same/results.json") == "$before" ]] || fail "the refused re-run changed results.json"

# 3. --force replaces them.
"$cctune" sweep --backend mpi -e 1K --collectives allgather --no-tune --force -o "$work/same" > /dev/null
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert {p['collective'] for r in d['runs'] for p in r['points']} == {'allgather'}" \
  "$work/same/results.json" || fail "--force did not replace the results"
echo "output_dir_test: OK"
