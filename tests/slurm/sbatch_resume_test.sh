#!/usr/bin/env bash
# A job cut off by its time limit (sbatch --time=2 --signal=TERM@80: Slurm sends SIGTERM
# to the job's steps before the limit, as `#SBATCH --signal=TERM@120` in the script does)
# leaves an interrupted results.json; a second job with CCTUNE_RESUME completes it in the
# same directory: every point present once, the first job's points kept as measured (not
# measured again).
#
# usage: sbatch_resume_test.sh CCTUNE WORKDIR SCHEMA
set -euo pipefail
cctune=$1 work=$2 schema=$3
test_name=sbatch_resume
source "$(dirname "$0")/lib.sh"
require_slurm

rm -rf "$work" && mkdir -p "$work" && cd "$work"
export CCTUNE_BIN=$cctune
# 3 collectives x 9 sizes x 2 placements = 54 points of ~1.2 s each: longer than the 40-70 s
# after which Slurm signals a 2-minute job with --signal=TERM@80 (its check runs about every
# 30 s). With a 1-minute job and TERM@40 the signal once came 3 s in, before any point ended.
# Sizes large enough that every point runs its whole 1 s time cap on any machine (small
# messages hit the 100000-iteration ceiling first on an idle box and the job ends too soon).
export CCTUNE_SWEEP_ARGS="--backend mpi -b 1M -e 256M --max-time 1 --target-noise 1e-9 --min-iters 1000000"
jid=$(sbatch --parsable --ntasks-per-node=2 --time=2 --signal=TERM@80 "$repo/tools/cctune.sbatch")
dir=$work/cctune-cctune-$jid
note "submitted job $jid with a 2-minute limit, signalled at 40 s"
state=$(wait_job "$jid" 210)
show_log "$work/cctune-cctune-$jid.log"
grep -qF "to continue: CCTUNE_RESUME=$dir sbatch --export=ALL " "$work/cctune-cctune-$jid.log" || fail "no resume hint in the log"
# The interrupted job leaves its time after SIGTERM to tune and report: no probe (review F16).
grep -q "probe: skipped (the sweep was interrupted" "$work/cctune-cctune-$jid.log" || fail "the probe ran after the interrupted sweep"
grep -q "report: $dir/report.html" "$work/cctune-cctune-$jid.log" || fail "no report after the interrupted sweep"
cp "$dir/results.json" "$work/first.json"
python3 "$here_lib/../mpi/sweep/check_results.py" "$work/first.json" "$schema" --status interrupted || fail "first results did not check"
note "first job ended $state"

# The script's own --signal=TERM@120 would stop a 5-minute job after 3 minutes; a resume on a
# loaded 2-core machine once needed more (CI ran beside four builds), so the resume job is
# signalled 15 s before its limit instead.
jid2=$(CCTUNE_RESUME=$dir CCTUNE_PROBE=0 sbatch --parsable --ntasks-per-node=2 --time=6 --signal=TERM@15 "$repo/tools/cctune.sbatch")
note "submitted resume job $jid2"
state2=$(wait_job "$jid2" 390)
show_log "$work/cctune-cctune-$jid2.log"
[[ $state2 == COMPLETED ]] || fail "resume job $jid2 ended $state2"
python3 "$here_lib/../mpi/sweep/check_results.py" "$dir/results.json" "$schema" --nranks 2 --status complete \
  --collectives allreduce,allgather,reducescatter || fail "resumed results did not check"

python3 - "$work/first.json" "$dir/results.json" <<'PY'
import json, sys
first, final = (json.load(open(p)) for p in sys.argv[1:3])
key = lambda p: (p["collective"], p["dtype"], p["op"], p["in_place"], p["size_bytes"], json.dumps(p["config"], sort_keys=True))
def points(doc):
    return [(r["backend"], r["group"]) + key(p) for r in doc["runs"] for p in r["points"]]
def by_key(doc):
    return {(r["backend"], r["group"]) + key(p): p for r in doc["runs"] for p in r["points"]}
fp, ap = points(first), points(final)
assert len(set(ap)) == len(ap), f"a point appears twice: {[k for k in set(ap) if ap.count(k) > 1][:3]}"
settings = final["meta"]["settings"]
want = len(settings["collectives"]) * len(settings["sizes_bytes"]) * len(settings["placements"])
assert len(ap) == want == 54, f"{len(ap)} points, plan has {want}"
assert 0 < len(fp) < want, f"first job measured {len(fp)} of {want}: it was not cut midway"
f, a = by_key(first), by_key(final)
for k, p in f.items():
    assert a[k]["batch_us"] == p["batch_us"] and a[k]["iter_us"] == p["iter_us"], f"point {k} was measured again"
resumed = settings.get("resumed", [])
assert len(resumed) == 1 and resumed[0]["previous_status"] == "interrupted" and resumed[0]["points_kept"] == len(fp), resumed
assert final["meta"]["start_time"] == first["meta"]["start_time"], "start time not kept"
assert len(final["runs"]) == 1, f"{len(final['runs'])} runs"
print(f"sbatch_resume: first job measured {len(fp)} points, resume measured {len(ap) - len(fp)}, none twice, {len(ap)} in all")
PY
grep -q "# resuming $dir: " "$work/cctune-cctune-$jid2.log" || fail "resume job did not say it resumed"
note "OK"
