#!/usr/bin/env bash
# Issue 15 items 8 and 13, from the command line: each reproducer ends at once with one
# "cctune: error: ... Fix: ..." line and exit 2 (or, for the huge probe factor, measures).
set -uo pipefail
cctune=$1 out=$2 fixtures=$3
rm -rf "$out"; mkdir -p "$out"
failures=0
expect_error() {  # expect_error NAME PATTERN -- ARGS...
  local name=$1 pattern=$2; shift 3
  local err rc start=$SECONDS
  err=$(timeout 30 "$@" 2>&1 >/dev/null); rc=$?
  if [[ $rc -ne 2 ]] || [[ $(grep -c 'cctune: error:' <<<"$err") -ne 1 ]] || ! grep -q -- "$pattern" <<<"$err" || ! grep -q "Fix:" <<<"$err"; then
    echo "FAIL $name: rc=$rc (want 2) after $((SECONDS-start)) s, stderr: ${err:0:300}"; failures=$((failures+1))
  else
    echo "ok   $name: $err"
  fi
}
expect_error sweep-tiny-factor "more than 100000" -- "$cctune" sweep --backend mpi -b 1 -e 1T -f 1.0000001 -o "$out/a"
expect_error sweep-empty-sizes "lists no size" -- "$cctune" sweep --backend mpi --sizes ,,, -o "$out/a"
mkfifo "$out/fifo"
expect_error report-fifo "not a regular file" -- "$cctune" report "$out/fifo" -o "$out/r.html"
expect_error report-dev-zero "not a regular file" -- "$cctune" report /dev/zero -o "$out/r.html"
expect_error probe-timeout "at most 86400" -- "$cctune" probe --timeout 2147484
expect_error probe-4g "at most 2 GiB" -- "$cctune" probe -e 4G
python3 - "$fixtures/mpi_np4.json" "$out" <<'PY'
import json, sys
src, out = sys.argv[1], sys.argv[2]
for name, value in (("minus_one", -1), ("huge_float", 1e30)):
    d = json.load(open(src))
    d["runs"][0]["points"][0]["size_bytes"] = value
    json.dump(d, open(f"{out}/{name}.json", "w"))
d = json.load(open(src)); d["runs"][0]["nranks"] = 0
json.dump(d, open(f"{out}/zero_ranks.json", "w"))
PY
expect_error size-minus-one '"size_bytes" is -1' -- "$cctune" report "$out/minus_one.json" -o "$out/r.html"
expect_error size-1e30 '"size_bytes" is 1' -- "$cctune" report "$out/huge_float.json" -o "$out/r.html"
expect_error nranks-zero '"nranks" is 0' -- "$cctune" report "$out/zero_ranks.json" -o "$out/r.html"
# A step factor of 2^63 wrapped the probe's size loop to 0; now it measures min and max.
err=$(timeout 60 "${MPIRUN:-mpirun}" --allow-run-as-root --oversubscribe -np 2 "$cctune" probe --probe tcp --socket-ifname lo -b 64K -e 1M \
      -f 9223372036854775808 -n 5 -o "$out/net.json" 2>&1); rc=$?
if [[ $rc -ne 0 ]] || ! python3 -c "import json,sys; p=json.load(open('$out/net.json'))['pairs'][0]; sys.exit(len(p['bandwidth'])!=2 or p['error'] is not None)"; then
  echo "FAIL probe-huge-factor: rc=$rc: ${err:0:400}"; failures=$((failures+1))
else
  echo "ok   probe-huge-factor: 2 sizes measured"
fi
[[ $failures -eq 0 ]] && echo "cli_inputs_test: all ok" || { echo "cli_inputs_test: $failures failure(s)"; exit 1; }
