"""Checks the `switched` capture: recording switched off and on from inside a PyTorch job through
cctune_profiler_events() (ctypes, the copy of the plugin NCCL loaded).
  check_profiler_switch.py CCTUNE CAPTURE_DIR
PASS when both switches returned 0 on each rank, the profiler's files hold exactly the calls the
job counted (per collective and count) and none of the warm-up's, while the COLL log shows the
warm-up's calls were issued."""
import glob
import json
import os
import subprocess
import sys

cctune, cap = sys.argv[1:3]
failures = []


def counts_of(path):
    out = {}
    for comm in json.load(open(path))["communicators"]:
        for c in comm["calls"]:
            k = (c.get("collective", c["kind"]), c["dtype"], c["count"])
            out[k] = out.get(k, 0) + c["calls"]
    return out


files = sorted(glob.glob(os.path.join(cap, "profiler", "workload.*.json")))
merged, log = os.path.join(cap, "profiler.merged.json"), os.path.join(cap, "log.json")
for args in (["merge", *files, "-o", merged], ["import", *sorted(glob.glob(os.path.join(cap, "nccl.rank*.log"))), "-o", log]):
    p = subprocess.run([cctune, "workload", *args], capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        print(f"FAIL: cctune workload {args[0]}: {p.stderr.strip()}")
        sys.exit(1)
prof, issued = counts_of(merged), counts_of(log)
job = {}
for r in (0, 1):
    c = json.load(open(os.path.join(cap, f"counts.rank{r}.json")))
    if c["extra"].get("switch_rc") != [0, 0]:
        failures.append(f"rank {r}: cctune_profiler_events returned {c['extra'].get('switch_rc')}, want [0, 0]")
    if r == 0:
        for row in c["calls"]:
            k = ("allreduce", row["dtype"], row["input_numel"])
            job[k] = job.get(k, 0) + row["calls"]
        warm = [tuple(w[:3]) for w in c["extra"]["not_recorded"]]
for k, n in sorted(job.items()):
    if prof.get(k, 0) != n:
        failures.append(f"{k}: the job counted {n} recorded calls, the profiler {prof.get(k, 0)}")
for k in warm:
    if prof.get(k, 0) != 0:
        failures.append(f"{k}: issued while recording was off, yet the profiler counted {prof[k]}")
    if issued.get(k, 0) == 0:
        failures.append(f"{k}: the COLL log does not show the warm-up's calls")
print(f"profiler: {sorted(prof.items())}; COLL log: {sorted(issued.items())}")
print("\n".join("FAIL: " + f for f in failures) if failures else "PASS: recording switched off and on from the job")
sys.exit(1 if failures else 0)
