"""Checks one capture's profiler-half files against its NCCL log and the job's own counts:
  check_profiler_workload.py CCTUNE SCHEMA CAPTURE_DIR
CAPTURE_DIR is one workload's folder from capture_workloads.sh run with CCTUNE_PROFILER_SO set:
nccl.rank<R>.log, counts.rank<R>.json and profiler/workload.<host>.<pid>.json (one per process).
PASS when
  - every profiler file satisfies the schema and `cctune workload merge` combines them;
  - per (collective, dtype, count, bytes) the profiler counted exactly the calls the COLL-log
    import counted (the profiler's events carry no reduction op, so op is left out of the key);
  - every shape the job counted itself (counts.rank0.json) has the job's call count;
  - where rank 0's TUNING lines name the algorithm and protocol, the profiler saw the same;
  - GPU time (kernel-channel globaltimer) was recorded for the collectives.
Prints one line per finding; exits 1 on any failure."""
import glob
import json
import os
import subprocess
import sys

import jsonschema

cctune, schema_path, cap = sys.argv[1:4]
schema = json.load(open(schema_path))
failures = []


def run(*args):
    p = subprocess.run([cctune, "workload", *args], capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        failures.append(f"cctune workload {args[0]}: rc {p.returncode}: {p.stderr.strip()}")
    return p


def load(path):
    w = json.load(open(path))
    jsonschema.validate(w, schema, cls=jsonschema.Draft202012Validator)
    return w


def key(c):
    return (c.get("collective", c["kind"]), c["dtype"], c["count"], c["bytes"])


def by_shape(w):
    out = {}
    for comm in w["communicators"]:
        for c in comm["calls"]:
            e = out.setdefault(key(c), {"calls": 0, "applied": set(), "samples": 0, "clock": set()})
            e["calls"] += c["calls"]
            e["applied"] |= {(a["algo"], a["proto"]) for a in c.get("applied", []) if a["algo"] != "auto"}
            d = c.get("duration_us")
            if d:
                e["samples"] += d["samples"]
                e["clock"].add(d.get("clock", "?"))
    return out


prof_files = sorted(glob.glob(os.path.join(cap, "profiler", "workload.*.json")))
if len(prof_files) != 2:
    failures.append(f"expected 2 profiler files (one per process), found {len(prof_files)}: {prof_files}")
for f in prof_files:
    try:
        w = load(f)
        if w["format"] != "nccl-profiler":
            failures.append(f"{f}: format {w['format']}")
    except Exception as e:  # noqa: BLE001 - report and go on
        failures.append(f"{f}: {e}")
merged = os.path.join(cap, "profiler.merged.json")
log_import = os.path.join(cap, "log.json")
run("merge", *prof_files, "-o", merged)
run("import", os.path.join(cap, "nccl.rank0.log"), os.path.join(cap, "nccl.rank1.log"), "-o", log_import)
if failures:
    print("\n".join("FAIL: " + f for f in failures))
    sys.exit(1)
prof, log = by_shape(load(merged)), by_shape(load(log_import))
# Profiler files count per process; the log import counts per rank: both are per rank.
for k in sorted(set(prof) | set(log)):
    pc, lc = prof.get(k, {}).get("calls", 0), log.get(k, {}).get("calls", 0)
    if pc != lc:
        failures.append(f"{k}: profiler counted {pc} calls, the COLL log {lc}")
    pa, la = prof.get(k, {}).get("applied", set()), log.get(k, {}).get("applied", set())
    if la and pa and not la <= pa:
        failures.append(f"{k}: TUNING says {sorted(la)}, the profiler saw {sorted(pa)}")

torch_to_nccl = {"all_reduce": ("allreduce", 0), "barrier": ("allreduce", 0), "all_gather_into_tensor": ("allgather", 0),
                 "reduce_scatter_tensor": ("reducescatter", 1), "all_to_all_single": ("alltoall", 2)}
job = {}
for row in json.load(open(os.path.join(cap, "counts.rank0.json")))["calls"]:
    coll, rule = torch_to_nccl[row["op"]]
    count = row["input_numel"] if rule == 0 else row["output_numel"] if rule == 1 else row["input_numel"] // 2
    job[(coll, row["dtype"], count)] = job.get((coll, row["dtype"], count), 0) + row["calls"]
prof_counts = {}
for (coll, dtype, count, _), e in prof.items():
    prof_counts[(coll, dtype, count)] = prof_counts.get((coll, dtype, count), 0) + e["calls"]
for k, n in sorted(job.items()):
    if prof_counts.get(k, 0) != n:
        failures.append(f"{k}: the job counted {n} calls, the profiler {prof_counts.get(k, 0)}")

timed = [k for k, e in prof.items() if k[0] not in ("send", "recv") and e["samples"] > 0]
colls = [k for k in prof if k[0] not in ("send", "recv")]
if colls and not timed:
    failures.append("no collective carries a GPU time: kernel-channel events never arrived")
clocks = set().union(*(prof[k]["clock"] for k in timed)) if timed else set()
print(f"shapes: {len(prof)} (profiler) {len(log)} (log); collectives timed: {len(timed)} of {len(colls)}; clocks: {sorted(clocks)}")
print("\n".join("FAIL: " + f for f in failures) if failures else "PASS: profiler workload agrees with the COLL log and the job")
sys.exit(1 if failures else 0)
