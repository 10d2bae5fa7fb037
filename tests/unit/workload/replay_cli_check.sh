#!/usr/bin/env bash
# replay_cli_check.sh CCTUNE SOURCE_DIR SCRATCH: `cctune replay W --dry-run` on the recorded DDP
# capture (tests/fixtures/workload): one step is the two bucket AllReduces in capture order,
# the start-up calls left out and said; a workload with groups lists them (tests/fixtures/
# workload/replay_groups.workload.json); workload.json carries first_call; refusals exit 2 with
# one line (no --dry-run, no step count, no communicator of --ranks N, a step the run would
# refuse, a root outside the communicator); a missing file exits 3.
set -euo pipefail
cctune=$1 src=$2 out=$3
caps=$src/tests/fixtures/workload/captures-h100-torch2.11-nccl2.28.9/ddp
fail() { echo "replay_cli_check: FAIL: $*"; exit 1; }
rm -rf "$out"; mkdir -p "$out"

"$cctune" workload import "$caps/nccl.rank0.log" "$caps/nccl.rank1.log" --steps 4 -o "$out/ddp.json" > /dev/null
grep -q '"first_call"' "$out/ddp.json" || fail "workload.json has no first_call"
"$cctune" replay "$out/ddp.json" --dry-run > "$out/step.txt"
cat "$out/step.txt"
grep -q "^# replay: one step on 2 ranks, 2 call shapes, in capture order$" "$out/step.txt" || fail "wrong step header"
mapfile -t calls < <(grep "^  " "$out/step.txt")
[[ ${#calls[@]} -eq 2 ]] || fail "expected the 2 bucket AllReduces, got ${#calls[@]} calls"
[[ ${calls[0]} == "  1 x allreduce float32 sum 8.04 MiB (2108426 elements) on "* ]] || fail "first call: ${calls[0]}"
[[ ${calls[1]} == "  1 x allreduce float32 sum 8.01 MiB (2099200 elements) on "* ]] || fail "second call: ${calls[1]}"
grep -q "16.1 MiB .* left out: 0.25 calls per step" "$out/step.txt" || fail "the start-up AllReduce is not said to be left out"

# Captured groups: one line each, the whole group's repeats, members in the caller's view.
"$cctune" replay "$src/tests/fixtures/workload/replay_groups.workload.json" --dry-run > "$out/groups.txt"
grep -q "^# replay: one step on 2 ranks, 1 call shapes and 2 groups, in capture order$" "$out/groups.txt" || fail "groups: wrong header"
grep -q "^  2 x group of 2: reducescatter float32 512 KiB (65536 elements), allreduce float32 1 MiB (262144 elements) on 0xfeed$" \
  "$out/groups.txt" || fail "groups: the reducescatter+allreduce group is not issued twice"

refused() {  # refused WHAT RC ARGS...: exit RC, one error line
  local what=$1 want=$2; shift 2
  set +e; "$cctune" replay "$@" > /dev/null 2> "$out/err"; local rc=$?; set -e
  [[ $rc -eq $want ]] || fail "$what: exit $rc, expected $want"
  [[ $(wc -l < "$out/err") -eq 1 ]] || fail "$what: not one line: $(cat "$out/err")"
}
"$cctune" workload import "$caps/nccl.rank0.log" "$caps/nccl.rank1.log" -o "$out/nosteps.json" > /dev/null
refused "no step count" 2 "$out/nosteps.json" --dry-run
grep -q -- "--steps N" "$out/err" || fail "no step count: the fix is not named: $(cat "$out/err")"
refused "--ranks 8" 2 "$out/ddp.json" --dry-run --ranks 8
refused "missing file" 3 "$out/none.json" --dry-run  # cannot be read: exit 3, as for every input file

# Review N15: the dry run refuses what the run refuses. A step count of 5e-324 makes each shape
# run 10^18 times per step (the dry run printed "1000000000000000000 x allreduce"); a flag
# replay does not take is refused with --dry-run too.
python3 - "$out/ddp.json" "$out/tiny_steps.json" "$out/root7.json" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))
w["steps"] = 5e-324
json.dump(w, open(sys.argv[2], "w"))
# A root outside the 2-rank communicator: named by its field, not as a --root nobody passed.
w = json.load(open(sys.argv[1]))
w["steps"] = 4
call = w["communicators"][0]["calls"][0]
call["collective"], call["root"] = "broadcast", 7
call.pop("op", None)
json.dump(w, open(sys.argv[3], "w"))
PY
refused "steps 5e-324" 2 "$out/tiny_steps.json" --dry-run
grep -q "times per step, more than replay issues (100000)" "$out/err" || fail "steps 5e-324: $(cat "$out/err")"
refused "--root with --dry-run" 2 "$out/ddp.json" --dry-run --root 1
grep -q -- "not expected: .*--root\. Fix: drop it" "$out/err" || fail "--root with --dry-run: $(cat "$out/err")"
refused "root 7 of 2 ranks" 2 "$out/root7.json" --dry-run
grep -q "^cctune: error: $out/root7.json: .*calls\[0\].root must be an integer from 0 to 1" "$out/err" ||
  fail "root 7: the file and the root are not named: $(cat "$out/err")"
! grep -qE -- "--(root|workload)" "$out/err" || fail "root 7: names a flag nobody passed: $(cat "$out/err")"
echo "replay_cli_check: OK"
