#!/usr/bin/env python3
"""Workers that misbehave, and the supervisor that must hold (issue 24: F3, F9, F12, F16).

  hostile.py SCENARIO --cctune PATH --mpiexec PATH --workdir DIR --preload LIB

Real processes throughout: selftest workers under a real supervisor, misbehaving through an
LD_PRELOAD library (hostile_worker.c) or frozen by the kernel's cgroup-v1 freezer.
"""
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lifecycle  # noqa: E402  (its sweep(), check() and stray_workers())
from lifecycle import check, group, stray_workers  # noqa: E402

SMALL = ["-b", "8", "-e", "4K", "-n", "5", "-w", "1", "--min-iters", "5", "--max-time", "0.03", "--collectives", "allreduce"]
FREEZER = "/sys/fs/cgroup/freezer"



def selftest_module(opts):
    """The GPU-free stand-in NCCL module, built beside cctune (tests/support/selftest)."""
    return os.path.join(os.path.dirname(os.path.abspath(opts.cctune)), "tests", "libcctune-selftest.so")

def hostile_sweep(opts, name, mode, extra=(), more_env=None):
    env = {"CCTUNE_SELFTEST_GPUS": "2", "LD_PRELOAD": opts.preload, "HOSTILE_MODE": mode}
    env.update(more_env or {})
    return lifecycle.sweep(opts, name, SMALL + ["--gpus", "2"] + list(extra), env)


def planned_points(res, label):
    return len(group(res, label)["points"])


def scenario_forged_points(opts):
    """F9: 20 000 forged point messages at 1000 GB/s from every worker."""
    clean = lifecycle.sweep(opts, "forge_clean", SMALL + ["--gpus", "2"], {"CCTUNE_SELFTEST_GPUS": "2"})
    check(clean.rc == 0, "the same sweep without the forger succeeds", clean)
    planned = planned_points(clean.results(), "nvlink")
    r = hostile_sweep(opts, "forge", "forge", more_env={"HOSTILE_N": "20000"})
    check(r.rc == 1, "the forging group fails (exit 1)", r)
    run = group(r.results(), "nvlink")
    check(run["status"] == "failed" and "point message refused" in run["reason"], f"reason names the refusal: {run['reason']}", r)
    check("\n" not in run["reason"], "the reason is one line")
    check(len(run["points"]) <= planned, f"no more points than planned ({len(run['points'])} <= {planned})")
    check(all(p.get("busbw_GBps", 0) < 100 for p in run["points"]), "no 1000 GB/s point recorded")
    check(r.results()["meta"]["status"] == "complete", "the sweep itself completed")


def scenario_repeated_point(opts):
    """F9: a forged 'skipped' duplicate of point 0 whose reason holds terminal escapes."""
    r = hostile_sweep(opts, "repeat", "repeat")
    check(r.rc == 1, "the group fails (exit 1)", r)
    run = group(r.results(), "nvlink")
    check(run["status"] == "failed" and "point message refused" in run["reason"], f"reason: {run['reason']}", r)
    # Which check trips first depends on timing and on the forged fields (rank 1 may not report
    # at all; no element count; point 0 not yet announced, or already reported): all name the
    # point, none quote the worker's text.
    check(any(w in run["reason"] for w in ("NCCL rank 1", "reported twice", "not the point being measured", "than planned")),
          "the violation is named")
    check("\x1b" not in run["reason"] and "second line" not in run["reason"], "the forged reason's escapes are not echoed")
    check(sum(1 for p in run["points"] if p["status"] == "skipped") <= 1, "at most the one forged skip recorded")


def scenario_orphans(opts):
    """F16: a worker's child that calls setsid() escapes the group kill; the subreaper ends it."""
    r = hostile_sweep(opts, "orphans", "orphan", ["--transport", "nvlink,pcie"])
    check(r.rc == 0, "the sweep succeeds", r)
    time.sleep(0.5)
    left = stray_workers(r.outdir)
    check(not left, f"no worker clone left running after the sweep: {left}")
    for pid in left:
        os.kill(pid, 9)


def scenario_log_dir_symlink(opts):
    """F12: <out>/workers cannot be made; a symlink planted at the old fixed scratch name
    (cctune-workers-<pid>) must not receive the logs."""
    base = os.path.join(opts.workdir, "logdir")
    shutil.rmtree(base, ignore_errors=True)
    out, tmp, victim = (os.path.join(base, d) for d in ("out", "tmp", "victim"))
    for d in (out, tmp, victim):
        os.makedirs(d)
    open(os.path.join(out, "workers"), "w").close()  # a file where the folder would go
    env = dict(os.environ, CCTUNE_NCCL_MODULE=selftest_module(opts), CCTUNE_SELFTEST_GPUS="2", TMPDIR=tmp)
    env.pop("CCTUNE_TEST_FAULT", None)
    # The shell plants the link at its own pid, which exec hands on to cctune.
    cmd = ['bash', '-c', 'ln -s "$0" "$TMPDIR/cctune-workers-$$" && exec "$@"', victim,
           opts.cctune, "sweep", "--backend", "nccl", "-o", out, "--gpus", "2"] + SMALL
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    check(p.returncode == 0, f"the sweep succeeds (rc {p.returncode}): {p.stderr}")
    check(os.listdir(victim) == [], f"nothing written through the planted symlink: {os.listdir(victim)}")
    made = [d for d in os.listdir(tmp) if d.startswith("cctune-workers.")]
    check(len(made) == 1, f"one private log directory made: {os.listdir(tmp)}")
    path = os.path.join(tmp, made[0])
    check(not os.path.islink(path) and (os.stat(path).st_mode & 0o777) == 0o700, "it is a real directory of mode 0700")
    check(sorted(os.listdir(path)) == ["nvlink.r0.log", "nvlink.r1.log"], f"the worker logs are there: {os.listdir(path)}")


def worker_pid(outdir, log_name):
    marker = os.path.join(os.path.abspath(outdir), "workers", log_name).encode()
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    if marker in f.read():
                        return int(pid)
            except OSError:
                pass
    return None


def freezer_cgroup():
    """A new cgroup-v1 freezer group, or None (with the reason printed) where there is none."""
    if not os.path.isdir(FREEZER) or not os.access(FREEZER, os.W_OK):
        print(f"SKIP: no writable cgroup-v1 freezer at {FREEZER} (needs root and a v1 freezer hierarchy)")
        return None
    path = os.path.join(FREEZER, f"cctune-test-{os.getpid()}")
    os.makedirs(path, exist_ok=True)
    return path


def set_freezer(cg, state):
    with open(os.path.join(cg, "freezer.state"), "w") as f:
        f.write(state)


def scenario_unkillable(opts):
    """F3: a worker that SIGKILL cannot end (frozen: uninterruptible, as one stuck in a GPU
    driver is) must not hang its supervisor: the group fails naming it and the sweep goes on;
    with a second frozen worker, SIGINT still ends the sweep."""
    cg = freezer_cgroup()
    if cg is None:
        return
    try:
        for interrupt in (False, True):
            run_frozen(opts, cg, interrupt)
    finally:
        set_freezer(cg, "THAWED")
        time.sleep(0.5)
        os.rmdir(cg)


def run_frozen(opts, cg, interrupt):
    name = "frozen_int" if interrupt else "frozen"
    outdir = os.path.join(opts.workdir, name)
    shutil.rmtree(outdir, ignore_errors=True)
    env = dict(os.environ, CCTUNE_NCCL_MODULE=selftest_module(opts), CCTUNE_SELFTEST_GPUS="2")
    env.pop("CCTUNE_TEST_FAULT", None)
    args = ["-b", "8", "-e", "256K", "-n", "5", "-w", "1", "--min-iters", "5", "--max-time", "0.2", "--target-noise", "0.000001",
            "--collectives", "allreduce", "--transport", "nvlink,pcie", "--point-timeout", "3", "--gpus", "2"]
    p = subprocess.Popen([opts.cctune, "sweep", "--backend", "nccl", "-o", outdir] + args, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    pid = None
    for _ in range(300):
        pid = worker_pid(outdir, "nvlink.r1.log")
        if pid or p.poll() is not None:
            break
        time.sleep(0.1)
    check(pid is not None, "worker rank 1 of group nvlink started")
    time.sleep(1)
    with open(os.path.join(cg, "cgroup.procs"), "w") as f:
        f.write(str(pid))
    set_freezer(cg, "FROZEN")
    if interrupt:
        time.sleep(1)
        p.send_signal(2)
    # Not a speed check: the worker stays frozen until the supervisor has exited (or 150 s
    # passed, when it clearly hangs as it did before the fix).
    try:
        out, err = p.communicate(timeout=150)
    except subprocess.TimeoutExpired:
        set_freezer(cg, "THAWED")
        out, err = p.communicate(timeout=60)
        check(False, f"the supervisor ended while its worker was frozen (it hung until thawed): {err}")
    with open(f"/proc/{pid}/stat") as f:
        state = f.read().rsplit(")", 1)[1].split()[0]
    check(state == "D", f"the worker was still frozen (state {state}) when the supervisor ended")
    set_freezer(cg, "THAWED")
    res = lifecycle.Run([], p.returncode, out, err, 0, outdir).results()
    nvlink = group(res, "nvlink")
    if interrupt:
        check(p.returncode == 130, f"SIGINT: exit 130 (got {p.returncode}): {err}")
        check(res["meta"]["status"] == "interrupted", "recorded as interrupted")
        return
    check(p.returncode == 1, f"exit code 1 with a failed group (got {p.returncode}): {err}")
    check(nvlink["status"] == "failed" and "did not exit after SIGKILL" in nvlink["reason"], f"reason: {nvlink['reason']}")
    # What happened, in order (docs/RUNTIME.md): the silence that ended the group, then the kill that did not end the worker.
    reason = nvlink["reason"]
    check("sent nothing for" in reason and reason.index("sent nothing for") < reason.index("did not exit after SIGKILL"),
          f"the reason names the silence first, then the abandoned worker: {reason}")
    # Ran, that is; on a host as loaded as CI's, its start-up may itself pass 3 s of silence.
    check(group(res, "pcie")["status"] in ("ok", "failed"), "the next group still ran")
    check(res["meta"]["status"] == "complete", "the sweep completed")


def main():
    opts = lifecycle.scenario_args([("--preload", {"required": True})])
    globals()["scenario_" + opts.scenario](opts)


if __name__ == "__main__":
    main()
