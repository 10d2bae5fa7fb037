#!/usr/bin/env bash
# --resume carries only what the sweep would measure (review 2026-11-24, F8, its r1): from a
# real interrupted allreduce sweep, each edit is refused in one line naming what is wrong:
# algbw 999 GB/s with batch_us 0.0001, a broadcast point, an NCCL config ring/ll/32 on the MPI
# backend, a whole extra run nccl/evil. The unedited file resumes to a complete sweep.
#
# usage: resume_tamper_test.sh CCTUNE WORKDIR
set -euo pipefail
cctune=$1 work=$2
rm -rf "$work" && mkdir -p "$work"
fail() { echo "resume_tamper_test: FAIL: $*"; exit 1; }
args=(sweep --backend mpi -e 1K --max-time 0.02 --collectives allreduce --no-tune)
"$cctune" "${args[@]}" -o "$work/r0" > /dev/null

python3 - "$work" <<'PY'
import copy, json, os, sys
work = sys.argv[1]
base = json.load(open(f"{work}/r0/results.json"))
base["meta"]["status"] = "interrupted"
base["runs"][0]["points"] = base["runs"][0]["points"][:8]
def write(name, doc):
    os.makedirs(f"{work}/{name}")
    json.dump(doc, open(f"{work}/{name}/results.json", "w"), indent=1)
write("clean", base)
d = copy.deepcopy(base); p = d["runs"][0]["points"][0]
p["algbw_GBps"] = p["busbw_GBps"] = 999.0; p["batch_us"] = 0.0001  # busbw = algbw on 1 rank
write("fast", d)
d = copy.deepcopy(base); p = d["runs"][0]["points"][1]
p["collective"] = "broadcast"; p["root"] = 0; p["algbw_GBps"] = p["busbw_GBps"] = 555.0
write("bcast", d)
d = copy.deepcopy(base); d["runs"][0]["points"][2]["config"] = {"algo": "ring", "proto": "ll", "channels": 32, "graph": False}
write("config", d)
d = copy.deepcopy(base); evil = copy.deepcopy(d["runs"][0]); evil.update(backend="nccl", group="evil")
for q in evil["points"]: q["algbw_GBps"] = q["busbw_GBps"] = 4242.0
d["runs"].append(evil)
write("evil", d)
PY
for case in "fast:algbw 999" "bcast:collective broadcast" "config:config ring/ll/32" "evil:run nccl/evil"; do
  dir=${case%%:*} want=${case#*:}
  set +e; "$cctune" "${args[@]}" --resume "$work/$dir" > /dev/null 2> "$work/$dir.err"; rc=$?; set -e
  [[ $rc -eq 2 ]] || { cat "$work/$dir.err"; fail "$dir: exit $rc, expected 2 (refused)"; }
  [[ $(grep -c . "$work/$dir.err") -eq 1 ]] || { cat "$work/$dir.err"; fail "$dir: not one line"; }
  grep -qF "$want" "$work/$dir.err" || { cat "$work/$dir.err"; fail "$dir: the error does not name '$want'"; }
  grep -q '"status": "interrupted"' "$work/$dir/results.json" || fail "$dir: the refused resume changed results.json"
  echo "resume_tamper_test: $dir refused: $(cat "$work/$dir.err")"
done
"$cctune" "${args[@]}" --resume "$work/clean" > "$work/clean.log" || { cat "$work/clean.log"; fail "the unedited file did not resume"; }
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['meta']['status']=='complete' and len(d['runs'])==1, d['meta']['status']" \
  "$work/clean/results.json" || fail "the resumed sweep is not complete"
echo "resume_tamper_test: OK"
