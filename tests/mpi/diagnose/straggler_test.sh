#!/usr/bin/env bash
# cctune diagnose names a straggler GPU: one node of 4 GPUs run by the selftest stand-in
# workers (no GPU needed), one of which launches every operation late
# (CCTUNE_TEST_SLOW_RANK=2:DELAY_US): diagnose must name exactly GPU 2 of this host, exit 5;
# and with no slowed rank, name nothing and exit 0. One node, so the network stages are
# skipped, and it says why.
# Usage: straggler_test.sh CCTUNE MPIEXEC
set -euo pipefail
cctune=$1 mpiexec=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export CCTUNE_NCCL_MODULE="$(dirname "$cctune")/tests/libcctune-selftest.so" CCTUNE_SELFTEST_GPUS=4

run() {  # run NAME [ENV=VALUE...]: diagnose into $work/NAME, exit code in $rc
  local name=$1; shift
  set +e
  env "$@" timeout 120 "$mpiexec" --oversubscribe -np 1 "$cctune" diagnose --backend nccl --latency-size 8 \
    --bandwidth-size 1M --max-time 0.5 -o "$work/$name" > "$work/$name.out" 2> "$work/$name.err"
  rc=$?
  set -e
  cat "$work/$name.out"
  sed 's/^/stderr: /' "$work/$name.err" | head -20
}

run slow CCTUNE_TEST_SLOW_RANK=2:3000
[[ $rc -eq 5 ]] || { echo "FAIL: with a slowed rank diagnose exited $rc, expected 5"; exit 1; }
grep -q "skipped: one node" "$work/slow.out" || { echo "FAIL: the network stages' skip is not said"; exit 1; }
run clean
[[ $rc -eq 0 ]] || { echo "FAIL: without a slowed rank diagnose exited $rc, expected 0"; exit 1; }

python3 - "$work" "$(hostname)" "$(cd "$(dirname "$0")" && pwd)/../../../configs/schema/diagnosis.schema.json" <<'PY'
import json, sys
import jsonschema
work, host, schema = sys.argv[1:]
slow = json.load(open(f"{work}/slow/diagnosis.json"))
for name in ("slow", "clean"):
    jsonschema.validate(json.load(open(f"{work}/{name}/diagnosis.json")), json.load(open(schema)))
got = [(s["kind"], s["host"], s["gpu"]) for s in slow["suspects"]]
print("slowed rank 2 ->", got, "|", slow["verdict"])
assert got == [("gpu", host, 2)], f"expected GPU 2 of {host}, got {got}"
assert any("straggler" in e for e in slow["suspects"][0]["evidence"]), slow["suspects"][0]
assert [s["gpu"] for s in slow["figures"]["stragglers"]] == [2], slow["figures"]["stragglers"]
skipped = {s["name"]: s["skipped_why"] for s in slow["stages"] if s["rounds"] == 0}
assert set(skipped) == {"pair probe", "pair collective", "all nodes"}, skipped
clean = json.load(open(f"{work}/clean/diagnosis.json"))
print("no slowed rank ->", clean["suspects"], "|", clean["verdict"])
assert clean["suspects"] == [] and clean["figures"]["stragglers"] == []
assert len(clean["figures"]["gpus"]) == 4
print("OK")
PY
