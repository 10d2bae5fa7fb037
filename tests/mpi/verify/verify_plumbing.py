#!/usr/bin/env python3
"""PLUMBING test of `cctune verify` (no GPU): real supervisors under `mpirun -np 2`, real
worker processes running the selftest stand-in module (CCTUNE_NCCL_MODULE=<build>/tests/
libcctune-selftest.so, which sleeps per op instead of running NCCL, and consults the group's
NCCL_TUNER_PLUGIN as NCCL does). What it checks is the command's plumbing, not NCCL:
profile in, interleaved default/profile groups with the right env (the profile group keeps
its own NCCL_TUNER_PLUGIN=<the .so> and CCTUNE_PROFILE), table and verify.json out, exit
codes. To make the profile group measurably slower or faster, the profile's env sets an NCCL
setting (NCCL_BUFFSIZE: a profile may set nothing else) and every worker gets
CCTUNE_SELFTEST_SLOWDOWN_WITH=NCCL_BUFFSIZE=<it>:FACTOR, a factor the stand-in applies to its
sleeps only where that setting is in force, as a real one changes NCCL's speed. Real NCCL:
tests/gpu/verify_gpu_check.sh.

usage: verify_plumbing.py SCENARIO --cctune BIN --mpiexec MPIEXEC --workdir DIR
scenarios: same (exit 0), regress (exit 4), faster (exit 0), bad_profile (exit 2); workload_regress
(exit 4) and workload_faster (exit 0) verify a job's workload (--workload: its sizes, and the
job's time per step judged)
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from plumbing import check, check_ab_document, write_profile  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("scenario", choices=["same", "regress", "faster", "bad_profile", "workload_regress", "workload_faster"])
    ap.add_argument("--cctune", required=True)
    ap.add_argument("--mpiexec", required=True)
    ap.add_argument("--workdir", required=True)
    o = ap.parse_args()
    work = os.path.join(o.workdir, o.scenario)
    job = o.scenario.startswith("workload_")
    o.scenario = o.scenario.removeprefix("workload_")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    prof = os.path.join(work, "profile.json")
    setting = {"NCCL_BUFFSIZE": "4194304"}
    env_of = {"same": {}, "regress": setting, "faster": setting}
    factor_of = {"same": "1", "regress": "3", "faster": "0.3"}
    if o.scenario == "bad_profile":
        with open(prof, "w") as f:
            f.write('{"schema": "cctune.profile/1", "rules": [{"collective": "allreduce"}]}')
    else:
        write_profile(prof, env_of[o.scenario], 3 << 20, 12 << 20)
    out = os.path.join(work, "out")
    e = dict(os.environ)
    e["CCTUNE_NCCL_MODULE"] = os.path.join(os.path.dirname(os.path.abspath(o.cctune)), "tests", "libcctune-selftest.so")
    e["CCTUNE_SELFTEST_GPUS"] = "2"
    for k in ("CCTUNE_TEST_FAULT", "CCTUNE_SELFTEST_SLOWDOWN", "CCTUNE_PROFILE", "NCCL_TUNER_PLUGIN", "NCCL_BUFFSIZE"):
        e.pop(k, None)
    if o.scenario in factor_of:
        e["CCTUNE_SELFTEST_SLOWDOWN_WITH"] = "NCCL_BUFFSIZE=4194304:" + factor_of[o.scenario]
    rounds = 6
    # The rules cover 4M and 8M: the default sizes (powers of two around the boundaries that a
    # rule covers). Sleeps of 0.2-0.4 ms dominate the timer noise; the wide tolerance keeps
    # the "same" case from failing on a loaded CI machine.
    cmd = [o.mpiexec, "--allow-run-as-root", "--oversubscribe", "-np", "2", o.cctune, "verify", "--profile", prof, "-o", out,
           "--rounds", str(rounds), "--max-time", "0.05", "--min-iters", "20", "--tolerance", "0.15"]
    if job:
        # A job of two ranks on one node: six 4 MiB buckets a step, the whole 8 MiB model once,
        # and a 64-rank communicator this allocation cannot reproduce.
        calls = [{"kind": "collective", "collective": "allreduce", "dtype": "float32", "op": "sum", "count": size // 4,
                  "bytes": size, "calls": n, "calls_per_step": n, "applied": []} for size, n in [(4 << 20, 6), (8 << 20, 1)]]
        wl = {"schema": "cctune.workload/1", "format": "nccl-log", "sources": ["job.log"], "steps": 1, "communicators": [
            {"id": "0x1", "nranks": 2, "nnodes": 1, "ranks": [0, 1], "calls": calls},
            {"id": "0x2", "nranks": 64, "nnodes": 8, "ranks": [0], "calls": calls[:1]}]}
        with open(os.path.join(work, "workload.json"), "w") as f:
            json.dump(wl, f)
        cmd += ["--workload", os.path.join(work, "workload.json")]
    p = subprocess.run(cmd, env=e, capture_output=True, text=True, timeout=240)
    run = f"cmd: {' '.join(cmd)}\nrc: {p.returncode}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}"
    print(p.stdout)
    if o.scenario == "bad_profile":
        check(p.returncode == 2, "a malformed profile is a usage error (exit 2)", run)
        check("rules[0]" in p.stderr or "profile.provenance" in p.stderr, "the error names the bad field", run)
        check(not os.path.exists(os.path.join(out, "results.json")), "nothing was measured", run)
        return
    expected_rc = 4 if o.scenario == "regress" else 0
    check(p.returncode == expected_rc, f"exit status {expected_rc}", run)

    with open(os.path.join(out, "results.json")) as f:
        res = json.load(f)
    labels = [r["group"] for r in res["runs"]]
    check(labels == ["default", "profile", "profile", "default"] * (rounds // 2),
          "results.json holds the rounds in alternating order: default, profile, profile, default, ...", labels)
    plugin = None
    for r in res["runs"]:
        check(r["status"] == "ok" and r["nranks"] == 2, f"run {r['group']} ok with 2 ranks", r.get("reason"))
        if r["group"] == "default":
            check(r["env"].get("NCCL_TUNER_PLUGIN") == "STATIC_PLUGIN" and "CCTUNE_PROFILE" not in r["env"],
                  "default group: cctune's in-executable plugin, no profile", r["env"])
        else:
            plugin = r["env"].get("NCCL_TUNER_PLUGIN", "")
            check(r["env"].get("CCTUNE_PROFILE") == os.path.abspath(prof), "profile group: CCTUNE_PROFILE is the profile", r["env"])
            check(os.path.isabs(plugin) and plugin.endswith("libnccl-tuner-cctune.so") and os.path.exists(plugin),
                  "profile group: its own NCCL_TUNER_PLUGIN (the .so) wins over STATIC_PLUGIN", r["env"])
            for k, v in env_of[o.scenario].items():
                check(r["env"].get(k) == v, f"profile group carries the profile's env {k}", r["env"])
    sizes = sorted({pt["size_bytes"] for r in res["runs"] for pt in r["points"]})
    check(sizes == [4 << 20, 8 << 20], "sizes come from the profile's rules (4M, 8M)", sizes)

    check_ab_document(os.path.join(out, "verify.json"))
    with open(os.path.join(out, "verify.json")) as f:
        v = json.load(f)
    check(v["schema"] == "cctune.verify/1" and v["rounds"] == rounds and len(v["rows"]) == 2, "verify.json: schema, rounds, 2 rows", v)
    want = {"same": "same", "regress": "slower", "faster": "faster"}[o.scenario]
    for row in v["rows"]:
        check(row["verdict"] == want, f"{row['size_bytes']} B: verdict {want}", row)
        check(row["rounds"] == rounds and row["ci_low"] <= row["speedup"] <= row["ci_high"], "CI holds the speedup", row)
        check(row["rule"] == "ring/simple/8", "the row names the profile's rule", row)
    check(v["regressed"] == (o.scenario == "regress"), "regressed flag", v)
    if o.scenario == "regress":
        check(v["geomean_speedup"] < 0.7, "geomean speedup well below 1 with a 3x slowdown", v["geomean_speedup"])
        check("slower with the profile" in p.stderr, "stderr says why the exit status is 4", run)
    if o.scenario == "faster":
        check(v["geomean_speedup"] > 1.5, "geomean speedup well above 1 with a 0.3x slowdown", v["geomean_speedup"])
    # With --workload the plan's table (collective, dtype, size, calls and time per step) comes first.
    table = p.stdout.split("# verify:")[1] if job else p.stdout
    lines = [l for l in table.splitlines() if l.startswith("allreduce")]
    check(len(lines) == 2 and all(want in l for l in lines), "the table has one allreduce row per size with its verdict", p.stdout)
    if job:
        step = v["job_step"]
        check(step["verdict"] == want and step["ci_low"] <= step["speedup"] <= step["ci_high"], "job_step: verdict and CI", step)
        check(step["workload"]["points"][0]["calls_per_step"] == 6, "job_step records the job's weights", step)
        check(f"collective time per step: NCCL defaults" in p.stdout and want in p.stdout.split("# job:")[1], "the job's line", p.stdout)
        check("communicator 0x2, 64 ranks x 8 nodes" in p.stdout, "the shape that cannot run here is named", p.stdout)
        if o.scenario == "regress":
            check("per step is longer with the profile" in p.stderr, "stderr says the job is slower", run)


if __name__ == "__main__":
    main()
