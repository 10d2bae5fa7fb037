"""`cctune sweep --workload --dry-run` and `cctune tune` by the job's time, end to end without a GPU:
  workload_sweep_cli_check.py CCTUNE SOURCE_DIR SCRATCH [SELFTEST_MODULE]
The dry run plans the real DDP and FSDP captures (2 ranks as 2 NCCL nodes) with their weights,
names what cannot run here, buckets sizes beyond --workload-sizes; tune on the ddp_job fixture
picks the group the job's time prefers, and the grid's geometric mean the other."""
import json
import os
import re
import shutil
import subprocess
import sys

cctune, src, scratch = sys.argv[1:4]
selftest = sys.argv[4] if len(sys.argv) > 4 else ""
caps = os.path.join(src, "tests/fixtures/workload/captures-h100-torch2.11-nccl2.28.9")
fixture = os.path.join(src, "tests/fixtures/tuning/ddp_job.results.json")
shutil.rmtree(scratch, ignore_errors=True)
os.makedirs(scratch)
failures = []


def run(*args, rc=0):
    p = subprocess.run([cctune, *args], capture_output=True, text=True, timeout=120)
    if p.returncode != rc:
        failures.append(f"{args}: rc {p.returncode}, wanted {rc}: {p.stdout[-400:]} {p.stderr.strip()}")
    return p


def expect(text, pattern, what):
    if not re.search(pattern, text, re.M):
        failures.append(f"{what}: no match for {pattern!r} in:\n{text}")


def one_line_error(p, words, what):
    lines = p.stderr.strip().splitlines()
    if len(lines) != 1 or not all(w in lines[0] for w in words):
        failures.append(f"{what}: wanted one line naming {words}, got {p.stderr!r}")


ddp, fsdp = os.path.join(scratch, "ddp.json"), os.path.join(scratch, "fsdp.json")
run("workload", "import", *(os.path.join(caps, "ddp", f"nccl.rank{r}.log") for r in (0, 1)), "--steps", "4", "-o", ddp)
run("workload", "import", *(os.path.join(caps, "fsdp", f"flight.rank{r}.json") for r in (0, 1)), "-o", fsdp)
# As a capture with CCTUNE_WORKLOAD_STEP_TIMES=1 writes it: the step cadence with its step time,
# which the sweep records (meta.settings.workload.step_us) for tune to hold savings against.
with open(ddp) as f:
    doc = json.load(f)
doc["communicators"][0]["cadence"] = {"calls_per_step": 4, "steps": 4.0, "timed_steps": 3, "step_ms": 2.5}
with open(ddp, "w") as f:
    json.dump(doc, f)

# DDP, 2 ranks as 2 NCCL hosts as captured: every collective shape is planned, with its calls per step.
p = run("sweep", "--workload", ddp, "--dry-run", "--gpus", "1", "--test-shared-gpu", "2")
expect(p.stdout, r"planned for 2 ranks on 2 NCCL nodes", "ddp dry run")
expect(p.stdout, r"^allreduce\s+float32\s+8396800\s+0\.750\s", "ddp 8 MiB bucket")
expect(p.stdout, r"^allreduce\s+float32\s+16830504\s+0\.250\s", "ddp whole model")
expect(p.stdout, r"^broadcast\s+int32\s+28\s+0\.250\s", "ddp reducer broadcast")
expect(p.stdout, r"^# sweep: \d+ points .* for the job's 6 shapes; estimated \d+ s", "ddp estimate")
sha = subprocess.run(["sha256sum", ddp], capture_output=True, text=True).stdout.split()[0]
expect(p.stdout, r"sha256 " + sha[:12], "the workload's sha256")

# The same capture said to cover 12 steps: its start-up calls (the whole-model all-reduce and the
# broadcasts, once each) are under a tenth of the steps, left out with the reason; the flag
# --workload-rare-shapes measures them.
ddp12 = os.path.join(scratch, "ddp12.json")
run("workload", "import", *(os.path.join(caps, "ddp", f"nccl.rank{r}.log") for r in (0, 1)), "--steps", "12", "-o", ddp12)
p = run("sweep", "--workload", ddp12, "--dry-run", "--gpus", "1", "--test-shared-gpu", "2")
expect(p.stdout, r"^allreduce\s+float32\s+8396800\s+0\.250\s", "ddp 12 steps: the bucket stays")
expect(p.stdout, r"^# not here: .* allreduce .*16830504 bytes: called 1 times in 12 steps .*--workload-rare-shapes", "ddp 12 steps: start-up")
if re.search(r"^allreduce\s+float32\s+16830504\s", p.stdout, re.M):
    failures.append(f"12 steps: the whole-model all-reduce seen once was planned: {p.stdout}")
p = run("sweep", "--workload", ddp12, "--dry-run", "--gpus", "1", "--test-shared-gpu", "2", "--workload-rare-shapes")
expect(p.stdout, r"^# sweep: \d+ points .* for the job's 6 shapes", "ddp 12 steps with rare shapes")

# One host, no emulation: nothing runs here, and the error names --emulate-nodes.
p = run("sweep", "--workload", ddp, "--dry-run", "--gpus", "2", rc=2)
one_line_error(p, ["2 nodes", "--emulate-nodes 2"], "ddp on one NCCL node")

# FSDP from the flight recorder: AllGather's size is NCCL's nBytes (count x nranks x 2 bytes of
# bf16), the sweep's size; durations weigh it; no steps: per capture; unknown node count noted.
p = run("sweep", "--workload", fsdp, "--dry-run", "--gpus", "1", "--test-shared-gpu", "2")
expect(p.stdout, r"^allgather\s+bfloat16\s+16384\s+4\.000\s+\d+\.\d\s+1$", "fsdp allgather 4096 bf16 elements")
expect(p.stdout, r"collective time per capture", "fsdp without steps")
expect(p.stdout, r"does not say its node count", "fsdp unknown nodes")
p = run("sweep", "--workload", fsdp, "--dry-run", "--gpus", "1", "--test-shared-gpu", "2", "--workload-sizes", "2")
expect(p.stdout, r"^# 7 distinct sizes bucketed into 5, each collective's on their own", "fsdp bucketed")
for coll in ("allreduce", "allgather", "reducescatter"):
    if len([l for l in p.stdout.splitlines() if l.startswith(coll + " ")]) > 2:
        failures.append(f"bucketing to 2 sizes left {coll} more than 2 sizes: {p.stdout}")
# One size each: every collective keeps a size of its own calls (buckets never mix
# collectives: a 4 B allreduce is not planned at an allgather's megabyte).
p = run("sweep", "--workload", fsdp, "--dry-run", "--gpus", "1", "--test-shared-gpu", "2", "--workload-sizes", "1")
expect(p.stdout, r"^allreduce\s+float32\s+4\s", "one size: the allreduce keeps its 4 B")
expect(p.stdout, r"^allgather\s+bfloat16\s+(16384|262144|1048576)\s", "one size: allgather at one of its own")
expect(p.stdout, r"^reducescatter\s+float32\s+(32768|524288|2097152)\s", "one size: reducescatter at one of its own")

# A real sweep of the DDP workload through the NCCL runtime with the selftest worker stand-in
# (no GPU, no NCCL): 2 ranks on 2 emulated nodes, exactly the job's shapes, the weights recorded.
if selftest and os.path.exists(selftest):
    import jsonschema
    # A release number: the sweep's own tune (at its end) needs one to write a profile.
    env = dict(os.environ, CCTUNE_NCCL_MODULE=selftest, CCTUNE_SELFTEST_GPUS="2", CCTUNE_SELFTEST_NCCL_VERSION="2.28.9")
    out = os.path.join(scratch, "selftest-sweep")
    p = subprocess.run([cctune, "sweep", "--backend", "nccl", "--workload", ddp, "--gpus", "2", "--emulate-nodes", "2",
                        "--configs", "auto,ring/simple", "--placement", "out", "--max-time", "0.05", "--min-iters", "5",
                        "-o", out], capture_output=True, text=True, timeout=240, env=env)
    if p.returncode != 0:
        failures.append(f"selftest sweep --workload: rc {p.returncode}: {p.stderr[-600:]}")
    else:
        res = json.load(open(os.path.join(out, "results.json")))
        jsonschema.validate(res, json.load(open(os.path.join(src, "configs/schema/results.schema.json"))),
                            cls=jsonschema.Draft202012Validator)
        w = res["meta"]["settings"]["workload"]
        if w["sha256"] != sha or (w["nranks"], w["nnodes"]) != (2, 2) or len(w["points"]) != 6 or w.get("step_us") != 2500:
            failures.append(f"meta.settings.workload: {w}")
        # Exactly the job's shapes: the points of the selftest sweep are no product of the lists.
        planned = {(pt["collective"], pt["dtype"], pt["size_bytes"]) for pt in w["points"]}
        measured = {(pt["collective"], pt["dtype"], pt["size_bytes"]) for run in res["runs"] for pt in run["points"]}
        if measured != planned:
            failures.append(f"measured shapes {sorted(measured)} are not the job's {sorted(planned)}")
        if any((run["nranks"], run["nnodes"]) != (2, 2) for run in res["runs"]):
            failures.append(f"runs not on 2 ranks x 2 nodes: {[(r['nranks'], r['nnodes']) for r in res['runs']]}")
        # The sweep's own profile is what `cctune tune` writes from the same results: both weigh by
        # the job's recorded time (they once differed: the sweep's end judged by the grid).
        again = os.path.join(scratch, "selftest-tune")
        t = run("tune", os.path.join(out, "results.json"), "-o", again)

        def without_time(doc):
            if isinstance(doc, dict):
                return {k: without_time(v) for k, v in doc.items() if k != "created"}
            return [without_time(v) for v in doc] if isinstance(doc, list) else doc
        for name in ("profile.json", "job_time.json"):
            mine, theirs = os.path.join(out, name), os.path.join(again, name)
            if not (os.path.exists(mine) and os.path.exists(theirs)):
                failures.append(f"{name}: written by the sweep {os.path.exists(mine)}, by tune {os.path.exists(theirs)}")
            elif without_time(json.load(open(mine))) != without_time(json.load(open(theirs))):
                failures.append(f"the sweep's {name} differs from tune's:\n{open(mine).read()}\n---\n{open(theirs).read()}")
        expect(p.stdout, r"collective time per step", "the sweep's own tune weighs by the job")
        expect(t.stdout, r"^# (the job's step: 2\.500 ms|no change: the best profile measured saves .* of the job's 2\.500 ms step)",
               "tune holds the saving against the job's step")
elif selftest:
    failures.append(f"selftest module {selftest} is not built")

# Bad inputs: one line, exit 2.
one_line_error(run("sweep", "--dry-run", "--gpus", "1", rc=2), ["--space or --workload"], "dry run of nothing")
bad = os.path.join(scratch, "bad.json")
open(bad, "w").write('{"format": "nccl-log"}')
one_line_error(run("sweep", "--workload", bad, "--dry-run", "--gpus", "1", rc=2), ["schema", "cctune.workload/1"], "malformed workload")
one_line_error(run("sweep", "--workload", os.path.join(scratch, "none.json"), "--dry-run", "--gpus", "1", rc=3), ["none.json"],
               "missing workload")
# The job's shapes are what a workload sweep measures: a flag naming sizes, collectives or types
# would be ignored, so it is refused, even where its value is wrong too.
for flag, value in (("-b", "1X"), ("--collectives", "allgather"), ("-d", "float16"), ("--sizes", "1M")):
    one_line_error(run("sweep", "--workload", ddp, "--dry-run", "--gpus", "2", flag, value, rc=2), [flag, "--workload", "drop"],
                   f"sweep --workload with {flag}")

# tune: the weights the sweep recorded decide; --grid ignores them; --workload FILE gives them.
p = run("tune", fixture, "-o", os.path.join(scratch, "job"), "--plugin", "/opt/lib/libnccl-tuner-cctune.so")
expect(p.stdout, r"^# process-level group: buffsize-8M", "job-weighted group")
# (issue 35: no 4 B rule any more, its 6 % gain does not clear the tolerance with its interval)
expect(p.stdout, r"collective time per step: NCCL defaults 0\.492 ms -> profile 0\.447 ms \(-9\.0 % \+/- 0\.\d %\)", "per-step line")
job_time = json.load(open(os.path.join(scratch, "job", "job_time.json")))
if job_time["shapes"][0]["nranks"] != 8 or abs(job_time["shapes"][0]["default_ms"] - 0.4916) > 1e-9:
    failures.append(f"job_time.json: {job_time}")
p = run("tune", fixture, "--grid", "-o", os.path.join(scratch, "grid"), "--plugin", "/opt/lib/libnccl-tuner-cctune.so")
# (issue 35: a grid weighs one call of every size, so the 8 and 16 MiB gains decide, as the job's do)
expect(p.stdout, r"^# process-level group: buffsize-8M", "grid group")
expect(p.stdout, r"^# no workload: groups weighed by one call of every measured size alike", "grid weights stated")
if os.path.exists(os.path.join(scratch, "grid", "job_time.json")):
    failures.append("--grid wrote job_time.json")

# A recorded workload that is not what the sweep writes: one line naming the key, exit 2.
for key, value, words in [("per_step", "yes", ["meta.settings.workload.per_step"]),
                          ("points", [{"collective": "allfoo"}], ["meta.settings.workload.points[0]"])]:
    doc = json.load(open(fixture))
    doc["meta"]["settings"]["workload"][key] = value
    bad_results = os.path.join(scratch, f"bad_{key}.results.json")
    json.dump(doc, open(bad_results, "w"))
    one_line_error(run("tune", bad_results, "-o", os.path.join(scratch, "bad"), rc=2), words, f"recorded workload with bad {key}")

# The same job as a workload file of 8 ranks on one node: only the large buckets this time.
job = {"schema": "cctune.workload/1", "format": "nccl-log", "sources": ["job.log"], "steps": 1, "communicators": [{
    "id": "0x1", "nranks": 8, "nnodes": 1, "ranks": list(range(8)), "calls": [
        {"kind": "collective", "collective": "allreduce", "dtype": "float32", "op": "sum", "count": size // 4,
         "bytes": size, "calls": calls, "calls_per_step": calls, "applied": []}
        for size, calls in [(8 << 20, 6), (16 << 20, 1)]]}]}
job_path = os.path.join(scratch, "job8.json")
json.dump(job, open(job_path, "w"))
p = run("tune", fixture, "--workload", job_path, "-o", os.path.join(scratch, "file"), "--plugin", "/opt/lib/libnccl-tuner-cctune.so")
# Its capture has no step time: no process-level change on collective time alone (issue 43).
expect(p.stdout, r"^# process-level group: default", "tune --workload without a step time keeps NCCL's environment")
expect(p.stdout, r"^# not deployed: group buffsize-8M .*no step time.*cctune tune RESULTS --job", "tune --workload names the group withheld")
# With the step time a capture with CCTUNE_WORKLOAD_STEP_TIMES=1 records, the group is deployed.
job["communicators"][0]["cadence"] = {"calls_per_step": 7, "steps": 1.0, "timed_steps": 1, "step_ms": 1.0}
json.dump(job, open(job_path, "w"))
p = run("tune", fixture, "--workload", job_path, "-o", os.path.join(scratch, "file_timed"), "--plugin", "/opt/lib/libnccl-tuner-cctune.so")
expect(p.stdout, r"^# process-level group: buffsize-8M", "tune --workload group with the job's step time")
expect(p.stdout, r"^# no rules", "no rule at sizes the job never issues")
p = run("tune", fixture, "--workload", ddp, "-o", os.path.join(scratch, "ddp"), rc=2)
one_line_error(p, ["none of its communicators"], "workload of another shape")

if failures:
    print("\n".join(failures))
    sys.exit(1)
print("ok")
