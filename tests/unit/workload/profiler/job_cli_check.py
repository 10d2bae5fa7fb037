#!/usr/bin/env python3
"""`cctune verify --job` and `tune --job` end to end, without a GPU: the job is
cctune_test_profiled_job, which loads the profiler half as NCCL does and prints nothing; a
setting in its environment makes its steps faster or slower, as a real NCCL setting would.

usage: job_cli_check.py CCTUNE TEST_JOB SOURCE_DIR WORK_DIR (the plugin is the one next to CCTUNE)
"""
import json
import os
import shutil
import subprocess
import sys
import time

cctune, job, source, work = sys.argv[1:5]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
profile = os.path.join(source, "tests/fixtures/tuner/unit_profile.json")  # env NCCL_MIN_CTAS=32
socket_results = os.path.join(source, "tests/fixtures/tuning/startup_veto.results.json")  # tunes to sockets 4x4
failures = []


def run(args, env_extra, expect_rc, name):
    env = dict(os.environ)
    for k in list(env):
        if k.startswith(("TEST_JOB_", "NCCL_", "CCTUNE_")):
            del env[k]
    env.update(env_extra)
    p = subprocess.run([cctune] + args, env=env, capture_output=True, text=True, timeout=300)
    if p.returncode not in (expect_rc if isinstance(expect_rc, tuple) else (expect_rc,)):
        failures.append(f"{name}: exit {p.returncode}, expected {expect_rc}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}")
    return p


def out(name):
    return os.path.join(work, name)


def verify(name, env, expect_rc, extra=()):
    return run(["verify", "--job", "--profile", profile, "--rounds", "6", "-o", out(name), *extra, "--", job], env, expect_rc, name)


def step(name):
    with open(os.path.join(out(name), "verify_job.json")) as f:
        return json.load(f)["job_step"]


# Faster: the profile's env halves the step time; the verdict and its interval say so.
verify("faster", {"TEST_JOB_FASTER_WITH": "NCCL_MIN_CTAS=32", "TEST_JOB_STEP_MS": "10"}, 0)
if os.path.exists(out("faster/verify_job.json")):
    s = step("faster")
    if s["verdict"] != "faster" or not s["ci_low"] > 1.3 or not 8 < s["default_ms"] < 14:
        failures.append(f"faster: {s}")
    with open(out("faster/job_runs.json")) as f:
        runs = json.load(f)["runs"]
    # Pairs alternate their order: default first in pair 1, the profile first in pair 2.
    if [r["side"] for r in runs[:4]] != ["default", "profile", "profile", "default"] or len(runs) != 12:
        failures.append(f"faster: run order {[r['side'] for r in runs]}")
    # A busy machine may make a run see two steps as one; its step time is still of the first
    # run's length (calls a step x ms per call).
    if any(r["calls_per_step"] != runs[0]["calls_per_step"] for r in runs) or runs[0]["calls_per_step"] % 3:
        failures.append(f"faster: calls per step {[r['calls_per_step'] for r in runs]} (the job issues 3)")
    if any(abs(r["step_ms"] - r["ms_per_call"] * r["calls_per_step"]) > 1e-6 * r["step_ms"] for r in runs):
        failures.append("faster: a run's step time is not its time per call x the calls a step")

# Slower beyond noise: exit 4, as verify.
p = verify("slower", {"TEST_JOB_FASTER_WITH": "NCCL_MIN_CTAS=32", "TEST_JOB_FACTOR": "2", "TEST_JOB_STEP_MS": "10"}, 4)
if "longer with the profile" not in p.stderr:
    failures.append(f"slower: no message: {p.stderr}")

# No effect: "same" (a wide tolerance: the machine may be busy).
verify("same", {"TEST_JOB_STEP_MS": "10"}, 0, ("--tolerance", "0.5"))
if os.path.exists(out("same/verify_job.json")) and step("same")["verdict"] != "same":
    failures.append(f"same: {step('same')}")

# The job's own step count.
verify("steps", {"TEST_JOB_STEPS": "20", "TEST_JOB_STEP_MS": "5"}, 0, ("--steps", "20", "--tolerance", "0.5"))

# A failing job: exit 1 naming the run and its log; the runs so far are kept.
p = verify("failing", {"TEST_JOB_EXIT": "5"}, 1)
if "exit code 5" not in p.stderr or "job.log" not in p.stderr:
    failures.append(f"failing: {p.stderr}")
if not os.path.exists(out("failing/verify_job.json")):
    failures.append("failing: no verify_job.json")

# A job whose calls never repeat enough: a clear error, not a number, saying what the calls
# showed and what to do.
p = verify("few_steps", {"TEST_JOB_STEPS": "2"}, 1)
if "no repeating step" not in p.stderr or "only twice" not in p.stderr or "run the job for more steps" not in p.stderr:
    failures.append(f"few_steps: {p.stderr}")

# Jobs as people write them, timed without --steps (R6 of the 2026-11-28 reliability review):
# calls after the last step (a barrier, a metrics reduction, a checkpoint), an evaluation every
# few steps, a start-up that repeats itself, a last step cut short, a metrics group beside the
# gradients. Each gives the step of 3 calls and its time (4 ms, an evaluation's 10 ms spread
# over its 5 steps). One pair each: the verdict does not matter here (0 same, 4 slower, 6 too
# few pairs to decide), only that the runs were timed (1: a run could not be).
for name, env, low, high, extra in [
        ("tail_1", {"TEST_JOB_TAIL_CALLS": "1"}, 3.5, 8, ()),
        ("tail_3", {"TEST_JOB_TAIL_CALLS": "3", "TEST_JOB_STEPS": "300", "TEST_JOB_STEP_MS": "1"}, 0.8, 4, ()),
        ("eval_5", {"TEST_JOB_EVAL_EVERY": "5", "TEST_JOB_EVAL_MS": "10", "TEST_JOB_TAIL_CALLS": "1"}, 5.5, 10, ()),
        ("eval_10", {"TEST_JOB_EVAL_EVERY": "10", "TEST_JOB_STEPS": "40", "TEST_JOB_TAIL_CALLS": "2"}, 3.5, 8, ()),
        ("startup", {"TEST_JOB_STARTUP_CALLS": "40", "TEST_JOB_TAIL_CALLS": "2"}, 3.5, 8, ()),
        ("cut_step", {"TEST_JOB_LAST_STEP_CALLS": "1", "TEST_JOB_EVAL_EVERY": "5", "TEST_JOB_EVAL_MS": "10"}, 5.5, 10, ()),
        ("cut_step_steps_given", {"TEST_JOB_LAST_STEP_CALLS": "1"}, 3.5, 8, ("--steps", "30")),
        ("metrics_comm", {"TEST_JOB_METRICS_COMM": "1", "TEST_JOB_TAIL_CALLS": "1"}, 3.5, 8, ())]:
    p = verify("shape_" + name, {"TEST_JOB_STEP_MS": "4", **env}, (0, 4, 6), ("--rounds", "1", *extra))
    if os.path.exists(out(f"shape_{name}/job_runs.json")):
        with open(out(f"shape_{name}/job_runs.json")) as f:
            runs = json.load(f)["runs"]
        if len(runs) != 2 or any(r["calls_per_step"] != 3 or not low <= r["step_ms"] <= high for r in runs):
            failures.append(f"shape {name}: {[(r['calls_per_step'], r['step_ms']) for r in runs]}")

# R15: --steps the calls contradict (31 for a job of 30 steps) is no step, with the reason.
p = verify("steps_31", {"TEST_JOB_STEP_MS": "2"}, 1, ("--steps", "31", "--rounds", "1"))
if "--steps 31 does not fit its calls: they repeat every 3 calls, 30 times" not in p.stderr or "leave --steps out" not in p.stderr:
    failures.append(f"steps_31: {p.stderr}")

# A hung job is killed at its limit.
p = verify("hung", {"TEST_JOB_STEP_MS": "100000"}, 1, ("--job-timeout-s", "2"))
if "time limit" not in p.stderr:
    failures.append(f"hung: {p.stderr}")

# SIGTERM while a run is going: the job's process group is killed, the runs so far are kept,
# exit 143.
env = {k: v for k, v in os.environ.items() if not k.startswith(("TEST_JOB_", "NCCL_", "CCTUNE_"))}
env.update({"TEST_JOB_STEP_MS": "200"})
p = subprocess.Popen([cctune, "verify", "--job", "--profile", profile, "--rounds", "4", "-o", out("stopped"), "--", job], env=env,
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
time.sleep(2)
p.send_signal(15)
stdout, stderr = p.communicate(timeout=60)
if p.returncode != 143 or "stopped by SIGTERM" not in stderr:
    failures.append(f"stopped: exit {p.returncode}, expected 143\n{stderr}")
elif json.load(open(out("stopped/verify_job.json")))["status"] != "interrupted":
    failures.append("stopped: verify_job.json does not say interrupted")


def ours(pid):
    """A process of this run: its CCTUNE_WORKLOAD is under out("stopped") (job_trust and others run the same job)."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            return any(v.startswith(b"CCTUNE_WORKLOAD=" + out("stopped").encode()) for v in f.read().split(b"\0"))
    except OSError:
        return False


left = [pid for pid in subprocess.run(["pgrep", "-f", job], capture_output=True, text=True).stdout.split() if int(pid) != os.getpid() and ours(pid)]
if left:
    failures.append(f"stopped: the job's processes outlived cctune: {left}")

# Bad input: one line naming it, exit 2.
for name, args in [("no_command", ["verify", "--job", "--profile", profile, "-o", out("x1")]),
                   ("missing_command", ["verify", "--job", "--profile", profile, "-o", out("x2"), "--", "no-such-job-cctune"]),
                   ("one_step", ["verify", "--job", "--profile", profile, "--steps", "1", "-o", out("x3"), "--", job]),
                   ("command_without_job", ["verify", "--profile", profile, "-o", out("x4"), "--", job]),
                   ("workload_with_job", ["verify", "--job", "--workload", "w.json", "--profile", profile, "-o", out("x5"), "--", job]),
                   ("again", ["verify", "--job", "--profile", profile, "-o", out("faster"), "--", job]),
                   ("steps_without_job", ["verify", "--profile", profile, "--steps", "5", "-o", out("x6")]),
                   ("sizes_with_job", ["verify", "--job", "--profile", profile, "-e", "1M", "-o", out("x7"), "--", job]),
                   ("tune_rounds_without_job", ["tune", socket_results, "--rounds", "3", "-o", out("x8")]),
                   ("tune_no_command", ["tune", socket_results, "--job", "-o", out("x9")])]:
    p = run(args, {}, 2, name)
    if len(p.stderr.strip().splitlines()) != 1:
        failures.append(f"{name}: not one line: {p.stderr}")

# tune --job: the sockets 4x4 candidate makes the job faster; its profile is written.
p = run(["tune", socket_results, "--job", "--rounds", "6", "-o", out("tune"), "--", job],
        {"TEST_JOB_FASTER_WITH": "NCCL_SOCKET_NTHREADS=4", "TEST_JOB_STEP_MS": "8"}, 0, "tune")
if os.path.exists(out("tune/tune_job.json")):
    with open(out("tune/tune_job.json")) as f:
        t = json.load(f)
    if t["status"] != "complete" or t["winner"]["verdict"] != "faster" or not os.path.exists(out("tune/profile.json")):
        failures.append(f"tune: {t}")
    else:
        with open(out("tune/profile.json")) as f:
            if json.load(f)["env"].get("NCCL_SOCKET_NTHREADS") != "4":
                failures.append("tune: the winner's profile lacks its env")
# tune --job where no candidate helps: says so and writes no profile.
p = run(["tune", socket_results, "--job", "--rounds", "6", "--tolerance", "0.5", "-o", out("tune_same"), "--", job],
        {"TEST_JOB_STEP_MS": "8"}, 0, "tune_same")
if "nothing beats NCCL's defaults" not in p.stdout or os.path.exists(out("tune_same/profile.json")):
    failures.append(f"tune_same: {p.stdout}")

# Every verify_job.json and tune_job.json written above is an A/B document (configs/schema/ab.schema.json).
import jsonschema  # noqa: E402  (only here: the checks above need nothing but the standard library)
with open(os.path.join(source, "configs", "schema", "ab.schema.json")) as f:
    ab_schema = json.load(f)
jsonschema.Draft202012Validator.check_schema(ab_schema)
documents = [os.path.join(d, n) for d, _, names in os.walk(work) for n in names if n in ("verify_job.json", "tune_job.json")]
if not documents:
    failures.append("no verify_job.json or tune_job.json to check against ab.schema.json")
for path in documents:
    with open(path) as f:
        for e in jsonschema.Draft202012Validator(ab_schema).iter_errors(json.load(f)):
            failures.append(f"{path}: not valid against ab.schema.json at {list(e.path)}: {e.message}")

if failures:
    print("\n\n".join(failures))
    sys.exit(1)
print("job_cli: ok")
