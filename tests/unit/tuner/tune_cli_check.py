#!/usr/bin/env python3
"""`cctune tune` end to end on the fixtures: exit codes, the three files, nccl.env sourced
by a real bash, profile.json valid against configs/schema/profile.schema.json.
Usage: tune_cli_check.py CCTUNE SOURCE_DIR WORK_DIR"""
import json
import os
import shutil
import subprocess
import sys

import jsonschema

cctune, source, work = sys.argv[1:4]
fixtures = os.path.join(source, "tests", "fixtures", "tuning")
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(*args):
    p = subprocess.run([cctune, "tune", *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


# 1. The single-node fixture: files, summary, env file through bash, schema.
out = os.path.join(work, "h200")
rc, so, se = run(os.path.join(fixtures, "h200x8_allreduce.results.json"), "-o", out, "-v")
print(so, se)
check(rc == 0, f"tune exit code {rc}")
for name in ("profile.json", "nccl.env", "nccl_tuner.conf"):
    check(os.path.isfile(os.path.join(out, name)), f"{name} written")
# channels-32 scores best and takes SMs: tune names it and keeps NCCL's environment (issue 43,
# "do no harm"), saying how to race it on the job.
check("process-level group: default" in so and "# not deployed: group channels-32" in so and "cctune tune RESULTS --job" in so,
      "summary names the group it withholds and how to race it")
env = subprocess.run(["env", "-i", "/bin/bash", "-c", 'set -a; . "$0" || exit 9; env', os.path.join(out, "nccl.env")],
                     capture_output=True, text=True)
check(env.returncode == 0, f"bash sources nccl.env (rc {env.returncode}: {env.stderr})")
values = dict(line.split("=", 1) for line in env.stdout.splitlines() if "=" in line)
check(values.get("CCTUNE_PROFILE") == os.path.join(os.path.abspath(out), "profile.json"), "CCTUNE_PROFILE is the profile")
plugin = values.get("NCCL_TUNER_PLUGIN", "")
check(os.path.isabs(plugin) and plugin.endswith("libnccl-tuner-cctune.so"), f"NCCL_TUNER_PLUGIN absolute: {plugin}")
check(os.path.isfile(plugin), f"the plugin exists at {plugin} (build target nccl-tuner-cctune)")
check("NCCL_MIN_CTAS" not in values and "NCCL_MAX_CTAS" not in values, "the withheld group's env is not in nccl.env")
schema = json.load(open(os.path.join(source, "configs", "schema", "profile.schema.json")))
profile = json.load(open(os.path.join(out, "profile.json")))
try:
    jsonschema.validate(profile, schema, cls=jsonschema.Draft202012Validator)
except jsonschema.ValidationError as e:
    check(False, f"profile.json valid against the schema: {e.message}")
check(profile["provenance"]["nccl_version"] == "2.28.3", "provenance.nccl_version")
check(profile["provenance"]["space"] == "default", "provenance.space from the results' settings")
# Issue 35: rules only where the gain clears the tolerance with its interval (the 8-512 B ring/ll
# ch=4 gain does not), each over the sizes measured only: the default group's 128 MiB tree/simple.
check(len(profile["rules"]) == 1, f"1 rule, got {len(profile['rules'])}")
conf = open(os.path.join(out, "nccl_tuner.conf")).read().splitlines()
check([l for l in conf if not l.startswith("#")][0] == "allreduce,134217728,134217728,tree,simple,24,1,8,-1,-1", "first CSV line")
check(len(profile.get("measured_baseline", [])) == 10, "NCCL's measured default at each of the 10 sizes")

rc, so, se = run(os.path.join(fixtures, "h200x8_allreduce.results.json"), "-o", os.path.join(work, "fc"), "--functional-check")
check(rc == 2 and se.count("error:") == 1 and "--functional-check" in se and not os.path.exists(os.path.join(work, "fc")),
      f"--functional-check on a real measurement is refused in one line, nothing written (rc {rc}: {se.strip()})")
check(profile["provenance"].get("test_mode") is None, "a real profile carries no test_mode")

# 2. The default output directory is the results' own.
copy = os.path.join(work, "copy")
os.makedirs(copy)
shutil.copy(os.path.join(fixtures, "two_nodes.results.json"), os.path.join(copy, "results.json"))
rc, so, se = run(os.path.join(copy, "results.json"), "--plugin", "/opt/cctune/lib/libnccl-tuner-cctune.so")
check(rc == 0 and os.path.isfile(os.path.join(copy, "profile.json")), "profile.json next to results.json")
check("NCCL_TUNER_PLUGIN=/opt/cctune/lib/libnccl-tuner-cctune.so" in open(os.path.join(copy, "nccl.env")).read(), "--plugin")

# 3. Refusals: MPI-only results (no NCCL version), a missing file, a bad --min-gain.
doc = json.load(open(os.path.join(fixtures, "two_nodes.results.json")))
del doc["meta"]["versions"]["nccl"]
mpi = os.path.join(work, "mpi.json")
json.dump(doc, open(mpi, "w"))
rc, so, se = run(mpi, "-o", os.path.join(work, "mpi-out"))
check(rc == 2 and "NCCL version" in se, f"MPI-only results refused with exit 2 (got {rc}: {se.strip()})")
check(not os.path.exists(os.path.join(work, "mpi-out", "profile.json")), "nothing written for refused results")
rc, so, se = run(os.path.join(work, "nosuch.json"))
check(rc != 0 and "nosuch.json" in se, f"missing results named (rc {rc}: {se.strip()})")
rc, so, se = run(mpi, "--min-gain", "5")
check(rc == 2, f"--min-gain 5 is a usage error (rc {rc})")

# A mistyped topology fingerprint (review F15): one line naming the field, exit 2.
doc = json.load(open(os.path.join(fixtures, "h200x8_allreduce.results.json")))
doc["topology"]["groups"][0]["fingerprint"] = 0
bad_fp = os.path.join(work, "bad_fp.json")
json.dump(doc, open(bad_fp, "w"))
rc, so, se = run(bad_fp, "-o", os.path.join(work, "bad-fp-out"))
check(rc == 2 and se.count("error:") == 1 and "topology.groups[0].fingerprint: expected a string" in se,
      f"mistyped fingerprint named with exit 2 (got {rc}: {se.strip()})")

# A malformed meta.settings (issue #23): each part read through its owner's accessor is one line
# naming the field, exit 2, nothing written; never an nlohmann exception or a crash.
for name, edit, field in (
        ("string", lambda s: "fast", "meta.settings: expected an object, got a string"),
        ("test_mode", lambda s: {**s, "test_mode": 1}, "meta.settings.test_mode: expected a string"),
        ("space", lambda s: {**s, "space": 5}, "meta.settings.space: expected an object"),
        ("workload", lambda s: {**s, "workload": {"points": [{"collective": "allreduce", "nranks": "eight"}]}},
         "meta.settings.workload.points[0].nranks: expected an integer")):
    doc = json.load(open(os.path.join(fixtures, "ddp_job.results.json")))
    doc["meta"]["settings"] = edit(doc["meta"]["settings"])
    bad = os.path.join(work, f"bad_settings_{name}.json")
    json.dump(doc, open(bad, "w"))
    rc, so, se = run(bad, "-o", os.path.join(work, f"bad-settings-{name}"))
    check(rc == 2 and se.count("\n") == 1 and "error:" in se and field in se and "Traceback" not in se
          and not os.path.exists(os.path.join(work, f"bad-settings-{name}", "profile.json")),
          f"malformed meta.settings ({name}) named in one line with exit 2 (got {rc}: {se.strip()})")

# 4. All nine collectives (issue 16): rules for broadcast and reduce (ring/LL forced faster at
# small sizes), none for the point-to-point ones even where a forced point looks faster.
doc = json.load(open(os.path.join(fixtures, "h200x8_allreduce.results.json")))
for run_ in doc["runs"]:
    autos = [p for p in run_["points"] if p["collective"] == "allreduce" and p["config"]["algo"] == "auto"]
    for coll in ("broadcast", "reduce", "alltoall", "sendrecv", "gather", "scatter"):
        for p in autos:
            q = json.loads(json.dumps(p))
            q["collective"] = coll
            if coll in ("broadcast", "reduce", "gather", "scatter"):
                q["root"] = 0
            run_["points"].append(q)
            if coll in ("broadcast", "reduce", "alltoall") and p["size_bytes"] <= 1024 and not p["in_place"]:
                f = json.loads(json.dumps(q))
                f["config"] = {"algo": "ring", "proto": "ll", "channels": 0, "graph": False}
                f["chosen"] = {"algo": "ring", "proto": "ll", "channels": 8}
                for k in ("median", "mean", "min", "max", "p99"):
                    f["iter_us"][k] *= 0.5
                f["batch_us"] *= 0.5
                run_["points"].append(f)
nine = os.path.join(work, "nine.json")
json.dump(doc, open(nine, "w"))
rc, so, se = run(nine, "-o", os.path.join(work, "nine-out"))
check(rc == 0, f"tune of nine collectives exits 0 (rc {rc}: {se.strip()})")
ruled = {r["collective"] for r in json.load(open(os.path.join(work, "nine-out", "profile.json")))["rules"]}
check({"broadcast", "reduce"} <= ruled, f"rules for broadcast and reduce: {sorted(ruled)}")
check(not ruled & {"alltoall", "sendrecv", "gather", "scatter"}, f"no rule for a point-to-point collective: {sorted(ruled)}")

print("ok" if not failures else f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
