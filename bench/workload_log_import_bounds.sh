#!/usr/bin/env bash
# Memory of `cctune workload import` on NCCL logs built to grow the reader's per-key state
# (review 2026-11-27 N5; the JSON importers' bounds are measured elsewhere).
#   bench/workload_log_import_bounds.sh BUILD_DIR [OUTPUT_DIR]
# Env: N (call lines, default 1000000: a 145 MB log), LIMIT_KB (default 102400).
# 1. tids: one communicator, each call line from another thread id. Must import, under LIMIT_KB
#    of peak RSS (/usr/bin/time %M).
# 2. comms: N Init COMPLETE lines with distinct communicator pointers. Must be refused (exit 2,
#    naming the line) once processes and communicators pass the shape bound, under LIMIT_KB.
# Prints one line per case and exits 1 when a case misses its bound.
set -uo pipefail
build=$(cd "${1:?usage: workload_log_import_bounds.sh BUILD_DIR [OUTPUT_DIR]}" && pwd)
out=${2:-$(mktemp -d /tmp/cctune-log-bounds.XXXXXX)}
mkdir -p "$out"
n=${N:-1000000}
limit=${LIMIT_KB:-102400}
[ -x /usr/bin/time ] || { echo "SKIP: /usr/bin/time not installed"; exit 0; }

python3 - "$out" "$n" <<'PY'
import sys
out, n = sys.argv[1], int(sys.argv[2])
init = "h1:100:100 [0] NCCL INFO comm 0x10 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 1000 commId 0xabc - Init COMPLETE\n"
with open(f"{out}/tids.log", "w") as f:
    f.write(init)
    for i in range(n):
        f.write("h1:100:%d [0] NCCL INFO AllReduce: opCount %x sendbuff 0x1 recvbuff 0x2 count 1024 datatype 7 op 0 "
                "root 0 comm 0x10 [nranks=2] stream 0x3\n" % (1000 + i, i))
with open(f"{out}/comms.log", "w") as f:
    for i in range(n):
        f.write("h1:100:100 [0] NCCL INFO comm 0x%x rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 1000 - Init COMPLETE\n" % (16 + i))
PY

fail=0
measure() {  # measure NAME EXPECTED_RC
  /usr/bin/time -f "%e %M" -o "$out/$1.time" "$build/cctune" workload import "$out/$1.log" -o "$out/$1.json" \
    > "$out/$1.stdout" 2> "$out/$1.stderr"
  local rc=$? secs kb
  read -r secs kb < <(tail -n 1 "$out/$1.time")  # time prepends "Command exited ..." on failure
  local mb=$(( $(stat -c %s "$out/$1.log") / 1000000 ))
  local verdict=ok
  if [ "$rc" -ne "$2" ] || [ "$kb" -ge "$limit" ]; then verdict=FAIL; fail=1; fi
  echo "$1: ${mb} MB log, exit $rc (want $2), ${secs} s, ${kb} kB peak RSS (bound ${limit} kB): $verdict"
  [ "$rc" -ne 0 ] && sed -n 1p "$out/$1.stderr"
}
measure tids 0
measure comms 2
exit $fail
