#!/usr/bin/env python3
"""What `cctune verify --job` and `tune --job` trust, end to end without a GPU (the 2026-11-28
reliability review, R1 and R5-R11, R14, R15): profiles and results from elsewhere, the caller's
deployed environment, output directories shared by two races, verdicts at their confidence, and
whether the profile changed anything in the job. The job is cctune_test_profiled_job (it loads
the profiler half and the tuner plugin as NCCL does; tuner_driver.hpp).

usage: job_trust_check.py CCTUNE TEST_JOB SOURCE_DIR WORK_DIR
"""
import json
import os
import shutil
import stat
import subprocess
import sys
import time

cctune, job, source, work = sys.argv[1:5]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
fixture_profile = os.path.join(source, "tests/fixtures/tuner/unit_profile.json")  # env NCCL_MIN_CTAS=32, rules for 8 and 16 ranks
socket_results = os.path.join(source, "tests/fixtures/tuning/startup_veto.results.json")  # tunes to sockets 4x4
failures = []


def clean_env(extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TEST_JOB_", "NCCL_", "CCTUNE_"))}
    env.update(extra)
    return env


def run(args, env_extra, expect_rc, name, cwd=None):
    p = subprocess.run([cctune] + args, env=clean_env(env_extra), capture_output=True, text=True, timeout=300, cwd=cwd)
    if p.returncode != expect_rc:
        failures.append(f"{name}: exit {p.returncode}, expected {expect_rc}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}")
    return p


def out(*parts):
    return os.path.join(work, *parts)


def write_json(name, doc):
    with open(out(name), "w") as f:
        json.dump(doc, f)
    return out(name)


def load(path):
    with open(path) as f:
        return json.load(f)


def script(name, body):
    path = out(name)
    with open(path, "w") as f:
        f.write("#!/bin/bash\n" + body)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    return path


def one_line(p, name):
    if len(p.stderr.strip().splitlines()) != 1:
        failures.append(f"{name}: not one line: {p.stderr}")


base = load(fixture_profile)
# Rules for the stand-in job's communicator (2 ranks, 1 node), no environment: only the tuner
# can change the job.
rules_here = dict(base, env={}, rules=[dict(base["rules"][1], nranks=2, nnodes=1, min_bytes=0, max_bytes=1 << 30, algo="tree")])
rules_here_path = write_json("rules_here.json", rules_here)

# R1: a profile's env takes only what a group may set; refused before any run, nothing made.
for key, value in [("LD_PRELOAD", "/tmp/marker.so"), ("BASH_ENV", "/tmp/x.sh"), ("CCTUNE_WORKLOAD_STEPS", "7"),
                   ("NCCL_PROFILER_PLUGIN", "/opt/vendor/libp.so"), ("NCCL_NET_PLUGIN", "/tmp/net.so")]:
    p_path = write_json(f"p_{key}.json", dict(base, env={"NCCL_MIN_CTAS": "32", key: value}))
    p = run(["verify", "--job", "--profile", p_path, "-o", out(f"r1_{key}"), "--", job], {}, 2, f"R1 profile {key}")
    one_line(p, f"R1 profile {key}")
    if f"profile.env sets {key}" not in p.stderr or os.path.exists(out(f"r1_{key}")):
        failures.append(f"R1 profile {key}: {p.stderr} (or its -o was made)")
# ...and a results file's group env, for tune and tune --job alike.
results = load(socket_results)
for r in results["runs"]:
    if r.get("env"):
        r["env"]["LD_PRELOAD"] = "/tmp/marker.so"
r_path = write_json("r_preload.json", results)
for name, args in [("tune", ["tune", r_path, "-o", out("r1_tune")]),
                   ("tune --job", ["tune", r_path, "--job", "-o", out("r1_tune_job"), "--", job])]:
    p = run(args, {}, 2, f"R1 results {name}")
    one_line(p, f"R1 results {name}")
    if "sets LD_PRELOAD" not in p.stderr or os.path.exists(os.path.join(out("r1_tune"), "nccl.env")):
        failures.append(f"R1 results {name}: {p.stderr}")

# R5: the default -o is relative; a job that changes directory still writes its files there.
os.makedirs(out("wd"))
cd_job = script("cd_job.sh", f'cd /\nexec "{job}"\n')
p = run(["verify", "--job", "--profile", rules_here_path, "--rounds", "1", "--", cd_job], {}, 6, "R5 relative -o", cwd=out("wd"))
if not os.path.exists(out("wd", "cctune-verify-job", "verify_job.json")):
    failures.append(f"R5: no verify_job.json in the relative -o: {p.stderr}")

# R7: a deployment in force (. nccl.env) is not "NCCL defaults": the tuner variables and the
# profile's own settings are not passed on; the caller's other NCCL settings apply to both sides.
env_job = script("env_job.sh", f'env > "$CCTUNE_WORKLOAD/env.txt"\nexec "{job}"\n')
deployed = {"NCCL_TUNER_PLUGIN": "/old/libnccl-tuner-cctune.so", "CCTUNE_PROFILE": "/old/profile.json", "NCCL_MIN_CTAS": "8",
            "NCCL_DEBUG": "WARN", "TEST_JOB_STEP_MS": "2"}
p = run(["verify", "--job", "--profile", fixture_profile, "--rounds", "1", "-o", out("r7"), "--", env_job], deployed, 6, "R7")
sides = {}
for d in sorted(os.listdir(out("r7", "runs"))) if os.path.isdir(out("r7", "runs")) else []:
    with open(out("r7", "runs", d, "env.txt")) as f:
        sides[d.split("-", 1)[1]] = dict(line.rstrip("\n").split("=", 1) for line in f if "=" in line)
d, pr = sides.get("default", {}), sides.get("profile", {})
if any(k in d for k in ("NCCL_TUNER_PLUGIN", "CCTUNE_PROFILE", "NCCL_MIN_CTAS")) or d.get("NCCL_DEBUG") != "WARN":
    failures.append(f"R7: the default side ran with {sorted(k for k in d if k.startswith(('NCCL_', 'CCTUNE_')))}")
if pr.get("NCCL_MIN_CTAS") != "32" or pr.get("CCTUNE_PROFILE") != fixture_profile or pr.get("NCCL_DEBUG") != "WARN":
    failures.append(f"R7: the profile side ran with {sorted((k, v) for k, v in pr.items() if k.startswith(('NCCL_', 'CCTUNE_')))}")
if "NCCL_TUNER_PLUGIN" not in p.stderr or "not passed to the job" not in p.stderr:
    failures.append(f"R7: no note naming what was not passed on: {p.stderr}")
if os.path.exists(out("r7", "verify_job.json")):
    v = load(out("r7", "verify_job.json"))
    if sorted(v["caller_settings_removed"]) != ["CCTUNE_PROFILE", "NCCL_MIN_CTAS", "NCCL_TUNER_PLUGIN"] or v["caller_nccl_env"] != {"NCCL_DEBUG": "WARN"}:
        failures.append(f"R7: verify_job.json {v['caller_settings_removed']} {v['caller_nccl_env']}")

# R8: a profile that changes nothing in the job says so after one pair, whatever the reason.
for name, profile, env, reason in [
        ("other_ranks", dict(base, env={}), {}, "no rule of the profile is for the job's communicators"),
        ("empty", dict(base, env={}, rules=[]), {}, "the profile sets nothing"),
        ("other_nccl", dict(rules_here, provenance=dict(rules_here["provenance"], nccl_version="2.3.0")), {"TEST_JOB_NCCL_VERSION": "22809"},
         "the tuner did not use the profile"),
        ("no_tuner", rules_here, {}, "NCCL did not load cctune's tuner")]:
    path = write_json(f"p_{name}.json", profile)
    # A launcher that does not pass NCCL_TUNER_PLUGIN on (mpirun without -x) loads no tuner.
    job_cmd = script(f"{name}.sh", f'unset NCCL_TUNER_PLUGIN\nexec "{job}"\n') if name == "no_tuner" else job
    p = run(["verify", "--job", "--profile", path, "-o", out(f"r8_{name}"), "--", job_cmd], dict(env, TEST_JOB_STEP_MS="2"), 0, f"R8 {name}")
    v = load(out(f"r8_{name}", "verify_job.json")) if os.path.exists(out(f"r8_{name}", "verify_job.json")) else {}
    if v.get("status") != "no-change" or reason not in v.get("no_change", "") or v.get("pairs_done") != 1 or "changed nothing" not in p.stdout:
        failures.append(f"R8 {name}: {v}\n{p.stdout}")
# A profile with an env is raced (the env changes the job), and says its rules steered nothing.
p = run(["verify", "--job", "--profile", fixture_profile, "--rounds", "1", "-o", out("r8_env"), "--", job], {"TEST_JOB_STEP_MS": "2"}, 6,
        "R8 env only")
if "rules steered nothing in this job (no rule of the profile is for the job's communicators" not in p.stdout:
    failures.append(f"R8 env only: {p.stdout}")
# ...and one whose rules the tuner applies is raced, and read faster where it makes the job faster.
p = run(["verify", "--job", "--profile", rules_here_path, "-o", out("r8_steered"), "--", job],
        {"TEST_JOB_FASTER_WHEN_STEERED": "1", "TEST_JOB_STEP_MS": "10"}, 0, "R8 steered")
if os.path.exists(out("r8_steered", "verify_job.json")) and load(out("r8_steered", "verify_job.json"))["job_step"]["verdict"] != "faster":
    failures.append(f"R8 steered: {load(out('r8_steered', 'verify_job.json'))}")

# R9: a second race into a live -o is refused before it touches anything, --force too.
env = clean_env({"TEST_JOB_STEP_MS": "100"})
first = subprocess.Popen([cctune, "verify", "--job", "--profile", fixture_profile, "--rounds", "1", "-o", out("r9"), "--", job], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
time.sleep(1.0)
for extra in ([], ["--force"]):
    p = run(["verify", "--job", "--profile", fixture_profile, "--rounds", "1", "-o", out("r9"), *extra, "--", job],
            {"TEST_JOB_STEP_MS": "100"}, 3, f"R9 second {extra}")
    if "another cctune" not in p.stderr:
        failures.append(f"R9 second {extra}: {p.stderr}")
first.communicate(timeout=120)
v = load(out("r9", "verify_job.json")) if os.path.exists(out("r9", "verify_job.json")) else {}
runs = load(out("r9", "job_runs.json"))["runs"] if os.path.exists(out("r9", "job_runs.json")) else []
if v.get("status") != "complete" or len(runs) != 2 or any(r["processes"] != 1 for r in runs):
    failures.append(f"R9 first: {v.get('status')} {runs}")

# R10: tune --job --force removes every output of the earlier race, the winner's profile too.
run(["tune", socket_results, "--job", "--rounds", "6", "-o", out("r10"), "--", job],
    {"TEST_JOB_FASTER_WITH": "NCCL_SOCKET_NTHREADS=4", "TEST_JOB_STEP_MS": "4"}, 0, "R10 first")
p = run(["tune", socket_results, "--job", "--rounds", "6", "--tolerance", "0.5", "--force", "-o", out("r10"), "--", job],
        {"TEST_JOB_STEP_MS": "4"}, 0, "R10 second")
left = [f for f in ("profile.json", "nccl.env", "nccl_tuner.conf", "job_time.json") if os.path.exists(out("r10", f))]
if left or load(out("r10", "tune_job.json"))["status"] != "no-gain":
    failures.append(f"R10: the earlier winner's {left} next to {load(out('r10', 'tune_job.json'))['status']}")

# R11: too few pairs is no verdict: undecided, exit 6, with the pairs still needed.
p = run(["verify", "--job", "--profile", fixture_profile, "--rounds", "1", "-o", out("r11"), "--", job],
        {"TEST_JOB_FASTER_WITH": "NCCL_MIN_CTAS=32", "TEST_JOB_FACTOR": "2", "TEST_JOB_STEP_MS": "5"}, 6, "R11")
s = load(out("r11", "verify_job.json"))["job_step"] if os.path.exists(out("r11", "verify_job.json")) else {}
if s.get("verdict") != "undecided" or s.get("more_pairs") != 5 or "5 more pairs needed" not in p.stdout:
    failures.append(f"R11: {s}\n{p.stdout}")
# --until-decided adds pairs until the verdict settles: a clear gain decides within the cap.
p = run(["verify", "--job", "--profile", fixture_profile, "--rounds", "2", "--until-decided", "16", "-o", out("until"), "--", job],
        {"TEST_JOB_FASTER_WITH": "NCCL_MIN_CTAS=32", "TEST_JOB_STEP_MS": "6"}, 0, "until-decided")
s = load(out("until", "verify_job.json"))["job_step"] if os.path.exists(out("until", "verify_job.json")) else {}
if s.get("verdict") != "faster" or not 7 <= s.get("rounds", 0) <= 16:
    failures.append(f"until-decided: {s}\n{p.stdout}")

# R14/R15: flags that are no numbers or names: one line, exit 2.
for name, args in [("tolerance nan", ["--tolerance", "nan"]), ("tolerance inf", ["--tolerance", "inf"]),
                   ("until below rounds", ["--rounds", "6", "--until-decided", "3"])]:
    p = run(["verify", "--job", "--profile", fixture_profile, *args, "-o", out("bad"), "--", job], {}, 2, name)
    one_line(p, name)
p = run(["verify", "--profile", fixture_profile, "--until-decided", "8", "-o", out("bad2")], {}, 2, "until without job")

if failures:
    print("\n\n".join(failures))
    sys.exit(1)
print("job_trust: ok")
