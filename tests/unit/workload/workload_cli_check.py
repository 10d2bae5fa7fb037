"""`cctune workload import` and `merge` end to end on the real H100 captures:
  workload_cli_check.py CCTUNE SOURCE_DIR SCRATCH
Every written file satisfies configs/schema/workload.schema.json; per-rank imports merged equal
the import of both ranks at once; the log and the flight recorder agree on every shape, and so do
NCCL Inspector's files with their run's log; bad inputs end in one line and exit 2."""
import json
import os
import shutil
import subprocess
import sys

import jsonschema

cctune, src, scratch = sys.argv[1:4]
caps = os.path.join(src, "tests/fixtures/workload/captures-h100-torch2.11-nccl2.28.9")
schema = json.load(open(os.path.join(src, "configs/schema/workload.schema.json")))
shutil.rmtree(scratch, ignore_errors=True)
os.makedirs(scratch)
failures = []


def run(*args, rc=0):
    p = subprocess.run([cctune, "workload", *args], capture_output=True, text=True, timeout=60)
    if p.returncode != rc:
        failures.append(f"{args}: rc {p.returncode}, wanted {rc}: {p.stderr.strip()}")
    return p


def load(path):
    w = json.load(open(path))
    jsonschema.validate(w, schema, cls=jsonschema.Draft202012Validator)
    return w


def shapes(w):
    return sorted((c.get("collective", c["kind"]), c["dtype"], c["count"], c["bytes"], c["calls"])
                  for comm in w["communicators"] for c in comm["calls"])


for job in ("ddp", "fsdp", "alltoall"):
    d = os.path.join(caps, job)
    both = os.path.join(scratch, job + ".log.json")
    p = run("import", os.path.join(d, "nccl.rank0.log"), os.path.join(d, "nccl.rank1.log"), "--steps", "4", "-o", both)
    if "2 ranks, 2 nodes" not in p.stdout:
        failures.append(f"{job}: summary does not give the communicator's shape: {p.stdout!r}")
    parts = []
    for r in (0, 1):
        parts.append(os.path.join(scratch, f"{job}.r{r}.json"))
        run("import", os.path.join(d, f"nccl.rank{r}.log"), "--steps", "4", "-o", parts[-1])
    merged = os.path.join(scratch, job + ".merged.json")
    run("merge", *parts, "-o", merged)
    flight = os.path.join(scratch, job + ".flight.json")
    run("import", os.path.join(d, "flight.rank0.json"), os.path.join(d, "flight.rank1.json"), "-o", flight)
    w_both, w_merged, w_flight = load(both), load(merged), load(flight)
    if w_both["communicators"] != w_merged["communicators"]:
        failures.append(f"{job}: merging per-rank imports differs from importing both")
    if shapes(w_both) != shapes(w_flight):
        failures.append(f"{job}: log and flight recorder disagree: {shapes(w_both)} vs {shapes(w_flight)}")
    if w_both["steps"] != 4 or any("calls_per_step" not in c for comm in w_both["communicators"] for c in comm["calls"]):
        failures.append(f"{job}: --steps 4 did not give calls per step")

# NCCL Inspector's files of the same jobs (a second run, <job>/inspector/): detected, written as
# format "inspector", the same (collective, nBytes, calls) as that run's COLL log.
for job in ("ddp", "fsdp"):
    d = os.path.join(caps, job, "inspector")
    dumps = sorted(os.path.join(d, "dump", f) for f in os.listdir(os.path.join(d, "dump")))
    out_i, out_l = os.path.join(scratch, job + ".insp.json"), os.path.join(scratch, job + ".insp-log.json")
    run("import", *dumps, "-o", out_i)
    run("import", os.path.join(d, "nccl.rank0.log"), os.path.join(d, "nccl.rank1.log"), "-o", out_l)
    w_i, w_l = load(out_i), load(out_l)
    by_bytes = lambda w: sorted((c["collective"], c["bytes"], c["calls"]) for comm in w["communicators"] for c in comm["calls"])
    if w_i["format"] != "inspector" or by_bytes(w_i) != by_bytes(w_l):
        failures.append(f"{job}: Inspector import {w_i['format']} {by_bytes(w_i)} vs the run's log {by_bytes(w_l)}")

# A profiler file whose calls showed no step says why (the communicator's no_step), and the
# import prints the busiest communicator's reason and fix; a merge keeps it.
no_step = {"reason": "its calls repeat a step of 3 calls only twice (calls 2 to 7 of 8)", "fix": "run the job for more steps"}
profiler_file = os.path.join(scratch, "no-step.profiler.json")
json.dump({"schema": "cctune.workload/1", "format": "nccl-profiler", "sources": ["nccl-profiler:h:1"], "steps": None,
           "communicators": [{"id": "0xc0ffee", "nranks": 2, "nnodes": 1, "ranks": [0], "no_step": no_step,
                              "calls": [{"kind": "collective", "collective": "allreduce", "dtype": "float32", "count": 8, "bytes": 32,
                                         "calls": 8}]}]}, open(profiler_file, "w"))
p = run("import", profiler_file, "-o", os.path.join(scratch, "no-step.json"))
if "# steps: none found: communicator 0xc0ffee (8 calls a rank): " + no_step["reason"] + ". Fix: run the job for more steps" not in p.stdout:
    failures.append(f"no step: the import does not say why: {p.stdout!r}")
elif load(os.path.join(scratch, "no-step.json"))["communicators"][0].get("no_step") != no_step:
    failures.append("no step: the import dropped the reason")

# Bad inputs: one line on stderr, exit 2, nothing written.
bad = os.path.join(scratch, "bad")
os.makedirs(bad)
open(os.path.join(bad, "notes.txt"), "w").write("hello\n")
os.mkfifo(os.path.join(bad, "fifo"))
shutil.copy(os.path.join(caps, "fsdp/flight.rank0.json"), os.path.join(bad, "flight.json"))
first = open(os.path.join(caps, "fsdp/inspector/dump", sorted(os.listdir(os.path.join(caps, "fsdp/inspector/dump")))[0])).readline()
open(os.path.join(bad, "cut.log"), "w").write(first[: len(first) // 2])
cases = [
    ("import", os.path.join(bad, "notes.txt"), "-o", os.path.join(bad, "o1.json")),
    ("import", "--format", "nccl-log", os.path.join(bad, "fifo"), "-o", os.path.join(bad, "o2.json")),
    ("import", os.path.join(bad, "flight.json"), "-o", os.path.join(bad, "o3.json")),  # no rank in the name
    ("merge", os.path.join(scratch, "fsdp.r0.json"), os.path.join(scratch, "fsdp.r0.json"), "-o", os.path.join(bad, "o4.json")),
    ("merge", os.path.join(caps, "fsdp/counts.rank0.json"), "-o", os.path.join(bad, "o5.json")),
    ("import", os.path.join(bad, "cut.log"), "-o", os.path.join(bad, "o6.json")),  # Inspector, cut in its first record
    ("import", "--format", "inspector", os.path.join(bad, "notes.txt"), "-o", os.path.join(bad, "o7.json")),
]
for args in cases:
    p = run(*args, rc=2)
    if p.stderr.count("\n") != 1 or "Fix" not in p.stderr and "fix" not in p.stderr:
        failures.append(f"{args}: not one line with a fix: {p.stderr!r}")
    if os.path.exists(args[-1]):
        failures.append(f"{args}: wrote {args[-1]}")

print("\n".join(failures) or "workload CLI: all checks passed")
sys.exit(1 if failures else 0)
