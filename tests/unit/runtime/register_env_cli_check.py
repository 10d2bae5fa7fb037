"""Buffer registration as a group setting, through the real supervisor and workers without a GPU
(issue 35): the workers run the selftest stand-in module, everything else is cctune's own.
  register_env_cli_check.py CCTUNE SCRATCH SELFTEST_MODULE
- `--env-group register-local:TORCH_NCCL_USE_TENSOR_REGISTER_ALLOCATOR_HOOK=1` reaches the group's
  workers (their first log line) and its run records the key in env and nccl_env; the default
  group's run does not.
- A value PyTorch would refuse in --env-group is refused before anything runs (exit 2, one line
  naming the variable, no results); in the caller's environment it reaches every worker, which
  fails its group naming the variable, and the sweep says so in one error line."""
import json
import os
import shutil
import subprocess
import sys

cctune, scratch, selftest = sys.argv[1:4]
KEY = "TORCH_NCCL_USE_TENSOR_REGISTER_ALLOCATOR_HOOK"
shutil.rmtree(scratch, ignore_errors=True)
os.makedirs(scratch)
failures = []
env = {k: v for k, v in os.environ.items() if not k.startswith(("NCCL_", "TORCH_", "CCTUNE_", "OMPI_", "PMIX_"))}
env["CCTUNE_NCCL_MODULE"] = selftest


def sweep(name, value, caller_env=None):
    out = os.path.join(scratch, name)
    args = [cctune, "sweep", "--backend", "nccl", "--gpus", "2", "--collectives", "allreduce", "-b", "1M", "-e", "1M",
            "-c", "1", "-n", "5", "-w", "1", "--max-time", "0.05", "-o", out]
    if value is not None:
        args[-2:-2] = ["--env-group", f"register-local:{KEY}={value}"]
    p = subprocess.run(args, capture_output=True, text=True, timeout=120, env=dict(env, **(caller_env or {})))
    runs = {}
    if os.path.exists(os.path.join(out, "results.json")):
        with open(os.path.join(out, "results.json")) as f:
            runs = {r["group"]: r for r in json.load(f)["runs"]}
    return p, runs, out


def error_lines(p):
    return [line for line in p.stderr.splitlines() if "error:" in line]


p, runs, out = sweep("on", "1")
if p.returncode != 0:
    failures.append(f"=1: rc {p.returncode}: {p.stderr.strip()}")
reg, base = runs.get("register-local", {}), runs.get("nvlink", {})
if reg.get("status") != "ok" or base.get("status") != "ok":
    failures.append(f"=1: groups {[(g, r.get('status'), r.get('reason')) for g, r in runs.items()]}")
if reg.get("env", {}).get(KEY) != "1" or reg.get("nccl_env", {}).get(KEY) != "1":
    failures.append(f"=1: register-local records env {reg.get('env')} nccl_env {reg.get('nccl_env')}")
if KEY in base.get("env", {}) or KEY in base.get("nccl_env", {}):
    failures.append(f"=1: the default group records {KEY}")
for rank in (0, 1):
    with open(os.path.join(out, "workers", f"register-local.r{rank}.log")) as f:
        first = f.readline()
    if f" {KEY}=1" not in first:
        failures.append(f"=1: worker {rank}'s environment line lacks the key: {first.strip()}")

# PyTorch's own spelling registers too.
p, runs, out = sweep("true", "true")
if p.returncode != 0 or runs.get("register-local", {}).get("nccl_env", {}).get(KEY) != "true":
    failures.append(f"=true: rc {p.returncode}, {runs.get('register-local', {}).get('nccl_env')}")

p, runs, out = sweep("bad", "on")
errors = error_lines(p)
if p.returncode != 2 or len(errors) != 1 or f"{KEY}=on" not in errors[0] or runs:
    failures.append(f"--env-group =on: rc {p.returncode}, error lines {errors}, runs {sorted(runs)}")

p, runs, out = sweep("caller", None, {KEY: "on"})
reason = runs.get("nvlink", {}).get("reason") or ""
if runs.get("nvlink", {}).get("status") != "failed" or f"{KEY}=on" not in reason:
    failures.append(f"caller's =on: nvlink {runs.get('nvlink', {}).get('status')}: {reason!r}")
errors = error_lines(p)
if p.returncode == 0 or len(errors) != 1 or KEY not in errors[0]:
    failures.append(f"caller's =on: rc {p.returncode}, error lines {errors}")

for f in failures:
    print("FAIL: " + f)
print("register_env_cli: " + ("FAILED" if failures else "ok"))
sys.exit(1 if failures else 0)
