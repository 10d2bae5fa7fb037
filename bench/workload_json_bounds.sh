#!/usr/bin/env bash
# Memory and time bounds of the workload path (issue 34; reliability review N4, N6), on inputs
# shaped as the review's big.py writes them (generated here, so the script runs anywhere):
#   bench/workload_json_bounds.sh BUILD_DIR [SCRATCH_DIR]
# Prints, per case: exit status, wall seconds and peak RSS (GNU time), and the first line the
# command wrote to stderr. Cases:
#   frmem 100      a valid flight-recorder dump padded with 100 MB of {} (big.py frmem F 100): refused by the value budget
#   frtrace 100    a 100 MB dump of real shape: 1 000-entry traces with stack frames (imported; frames dropped while parsing)
#   wl1e6          workload.json of 10^6 shapes (big.py wl1e6 F 1000000): merge refused at the 200 000-shape cap
#   prom N         import of a log of N distinct shapes with --prometheus, N = 50k, 100k, 200k: time grows linearly
# Bounds (issue 34): frmem/frtrace under 500 MB RSS; wl1e6 under 30 s; prom linear.
set -uo pipefail
build=$(cd "${1:?usage: workload_json_bounds.sh BUILD_DIR [SCRATCH_DIR]}" && pwd)
t=${2:-$(mktemp -d /tmp/cctune-wlbounds.XXXXXX)}
mkdir -p "$t"
cctune=$build/cctune
timer=$(command -v /usr/bin/time || true)
[ -n "$timer" ] || { echo "SKIP: GNU time (/usr/bin/time) not found"; exit 0; }

gen() {  # gen KIND OUT N
  python3 - "$@" <<'PY'
import json, sys
kind, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
with open(out, "w") as f:
    if kind == "frmem":
        f.write('{"pg_config":{"0":{"ranks":"[0, 1]"}},"entries":[{"profiling_name":"nccl:all_reduce","process_group":["0","d"],'
                '"input_sizes":[[1024]],"input_dtypes":["Float"]}],"pad":[')
        chunk = "{}," * (1 << 18)
        for _ in range(n * (1 << 20) // len(chunk)): f.write(chunk)
        f.write("{}]}")
    elif kind == "frtrace":
        frame = {"name": "forward", "filename": "/opt/venv/lib/python3.11/site-packages/torch/nn/modules/module.py", "line": 1736}
        entries, size = [], 0
        while size < n << 20:
            e = {"record_id": len(entries), "pg_id": 0, "process_group": ["0", "default_pg"], "collective_seq_id": len(entries) + 1,
                 "p2p_seq_id": 0, "op_id": len(entries) + 1, "profiling_name": "nccl:all_reduce", "time_created_ns": 1,
                 "duration_ms": 0.5, "input_sizes": [[1024 * (1 + len(entries) % 64)]], "input_dtypes": ["Float"],
                 "output_sizes": [[1024 * (1 + len(entries) % 64)]], "output_dtypes": ["Float"], "state": "completed",
                 "time_discovered_started_ns": 1, "time_discovered_completed_ns": 2, "retired": True, "timeout_ms": 600000,
                 "is_p2p": False, "frames": [frame] * 400}
            size += len(json.dumps(e))
            entries.append(e)
        json.dump({"version": "2.4", "pg_config": {"0": {"name": "0", "desc": "default_pg", "ranks": "[0, 1]"}}, "pg_status": {},
                   "entries": entries}, f)
    elif kind == "wl1e6":
        f.write('{"schema":"cctune.workload/1","format":"nccl-log","sources":["x"],"steps":4,"communicators":[{"id":"0x1","nranks":2,"nnodes":1,"ranks":[0],"calls":[')
        f.write(",".join('{"kind":"collective","collective":"allreduce","dtype":"float32","op":"sum","count":%d,"bytes":%d,"calls":4,"first_call":%d}' % (i + 1, 4 * (i + 1), i) for i in range(n)))
        f.write("]}]}")
    elif kind == "shapes":
        f.write("h1:100:100 [0] NCCL INFO comm 0x10 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 1000 commId 0xabc - Init COMPLETE\n")
        for i in range(n):
            f.write("h1:100:100 [0] NCCL INFO AllReduce: opCount %x sendbuff 0x1 recvbuff 0x2 count %d datatype 7 op 0 root 0 comm 0x10 [nranks=2] stream 0x3\n" % (i, i + 1))
PY
}

measure() {  # measure NAME COMMAND...
  local name=$1; shift
  "$timer" -f "%e %M" -o "$t/$name.time" "$@" > "$t/$name.stdout" 2> "$t/$name.stderr"
  local rc=$?
  read -r secs kb < <(tail -1 "$t/$name.time")  # GNU time puts "Command exited with ..." first
  printf '%-14s exit %-3s %7.2f s %8d MB RSS  %s\n' "$name" "$rc" "$secs" $((kb / 1024)) "$(head -c 160 "$t/$name.stderr" | head -1)"
}

gen frmem "$t/frmem_rank0.json" 100
gen frtrace "$t/frtrace_rank0.json" 100
gen wl1e6 "$t/wl1e6.json" 1000000
printf '# inputs: frmem %d MB, frtrace %d MB, wl1e6 %d MB\n' $(( $(stat -c %s "$t/frmem_rank0.json") >> 20 )) \
  $(( $(stat -c %s "$t/frtrace_rank0.json") >> 20 )) $(( $(stat -c %s "$t/wl1e6.json") >> 20 ))
measure frmem "$cctune" workload import "$t/frmem_rank0.json" -o "$t/frmem.out.json"
measure frtrace "$cctune" workload import "$t/frtrace_rank0.json" -o "$t/frtrace.out.json"
measure wl1e6 "$cctune" workload merge "$t/wl1e6.json" -o "$t/wl1e6.out.json" --prometheus "$t/wl1e6.prom"
for n in 50000 100000 200000; do
  gen shapes "$t/shapes$n.log" $n
  measure "noprom$n" "$cctune" workload import "$t/shapes$n.log" -o "$t/shapes$n.json"
  measure "prom$n" "$cctune" workload import "$t/shapes$n.log" -o "$t/shapes$n.json" --prometheus "$t/shapes$n.prom"
done
