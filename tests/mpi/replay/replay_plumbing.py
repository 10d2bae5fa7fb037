#!/usr/bin/env python3
"""PLUMBING test of `cctune replay` (no GPU): real supervisors under `mpirun -np 2`, real worker
processes running the selftest stand-in module (CCTUNE_NCCL_MODULE=<build>/tests/
libcctune-selftest.so), which records every replayed step it prepares
(CCTUNE_SELFTEST_RECORD_STEP) and sleeps per call instead of running NCCL. The workload is the
recorded DDP capture (tests/fixtures/workload), imported with --steps 4: one step is its two
bucket AllReduces. Scenarios:
  defaults   no profile: the issued sequence (order, counts, dtypes) on every rank, every round;
             the step time line, replay.json, exit 0
  regress    a profile whose env makes the stand-in 3x slower: exit 4, verdict slower
  faster     ... 0.3x: exit 0, verdict faster
  (defaults also: a second replay into the same -o is refused, --force replaces it)
  bad_input  one-line refusals: exit 2 (a flag replay does not take, --ranks other than the
             allocation's, a workload without a step count), exit 3 (a missing workload)
  groups     a workload with captured groups (tests/fixtures/workload/replay_groups.workload.json):
             each group issued as one unit with its members in order and its repeats, the lone
             calls around it, the p2p group left out; replay.json marks the members
usage: replay_plumbing.py SCENARIO --cctune BIN --mpiexec MPIEXEC --source DIR --workdir DIR
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from plumbing import check, check_ab_document, write_profile  # noqa: E402

# The step of the DDP capture (replay_cli_check.sh checks the same plan with --dry-run).
STEP = ["allreduce float32 sum 2108426 x1", "allreduce float32 sum 2099200 x1"]
# The step of the groups fixture as the stand-in records it: a group of the two allgathers (in
# the caller's bf16, not the profiler's int8 shapes), the reducescatter+allreduce group twice,
# then the allreduce's calls outside groups.
GROUPED_STEP = ["group x1 begin", "  allgather bfloat16 sum 4096", "  allgather bfloat16 sum 2048", "group end",
                "group x2 begin", "  reducescatter float32 sum 65536", "  allreduce float32 sum 262144", "group end",
                "allreduce float32 sum 262144 x2"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("scenario", choices=["defaults", "regress", "faster", "bad_input", "groups"])
    for a in ("--cctune", "--mpiexec", "--source", "--workdir"):
        ap.add_argument(a, required=True)
    o = ap.parse_args()
    work = os.path.join(o.workdir, o.scenario)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    caps = os.path.join(o.source, "tests/fixtures/workload/captures-h100-torch2.11-nccl2.28.9/ddp")
    logs = [os.path.join(caps, f"nccl.rank{r}.log") for r in (0, 1)]
    wl = os.path.join(work, "ddp.json")
    subprocess.run([o.cctune, "workload", "import", *logs, "--steps", "4", "-o", wl], check=True, capture_output=True)

    e = dict(os.environ)
    e["CCTUNE_NCCL_MODULE"] = os.path.join(os.path.dirname(os.path.abspath(o.cctune)), "tests", "libcctune-selftest.so")
    e["CCTUNE_SELFTEST_GPUS"] = "2"
    record = os.path.join(work, "step")
    e["CCTUNE_SELFTEST_RECORD_STEP"] = record
    for k in ("CCTUNE_TEST_FAULT", "CCTUNE_SELFTEST_SLOWDOWN", "CCTUNE_SELFTEST_SLOWDOWN_WITH", "CCTUNE_PROFILE", "NCCL_TUNER_PLUGIN",
              "NCCL_BUFFSIZE"):
        e.pop(k, None)
    out = os.path.join(work, "out")
    mpirun = [o.mpiexec, "--allow-run-as-root", "--oversubscribe", "-np", "2", o.cctune, "replay"]

    def run(args, timeout=240):
        cmd = mpirun + args
        p = subprocess.run(cmd, env=e, capture_output=True, text=True, timeout=timeout)
        return p, f"cmd: {' '.join(cmd)}\nrc: {p.returncode}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}"

    if o.scenario == "bad_input":
        nosteps = os.path.join(work, "nosteps.json")
        subprocess.run([o.cctune, "workload", "import", *logs, "-o", nosteps], check=True, capture_output=True)
        for what, args, rc, words in [
                ("--sizes is refused", [wl, "--sizes", "1M", "-o", out], 2, "--sizes. Fix: drop it"),
                ("--ranks other than the allocation's", [wl, "--ranks", "4", "-o", out], 2, "this allocation's 2 NCCL ranks"),
                ("a workload without a step count", [nosteps, "-o", out], 2, "--steps N"),
                ("a missing workload", [os.path.join(work, "none.json"), "-o", out], 3, "none.json")]:
            p, text = run(args, timeout=120)
            errors = [l for l in p.stderr.splitlines() if l.startswith("cctune")]
            check(p.returncode == rc, f"{what}: exit {rc}", text)
            check(errors and all(l == errors[0] for l in errors) and words in errors[0], f"{what}: one line naming it", text)
            check(not os.path.exists(os.path.join(out, "results.json")), f"{what}: nothing was measured", text)
        check(not glob.glob(record + ".rank*"), "no step was issued")
        return

    if o.scenario == "groups":
        check_groups(run, os.path.join(o.source, "tests/fixtures/workload/replay_groups.workload.json"), out, record)
        return

    rounds = 6  # fewer are undecided (issue 43)
    args = [wl, "-o", out, "--rounds", str(rounds), "--max-time", "0.05", "--min-iters", "10", "--tolerance", "0.15"]
    if o.scenario != "defaults":
        prof = os.path.join(work, "profile.json")
        # An NCCL setting the stand-in slows (or speeds) only where it is in force: a profile may set
        # nothing but NCCL settings.
        write_profile(prof, {"NCCL_BUFFSIZE": "4194304"}, 4 << 20, 16 << 20)
        e["CCTUNE_SELFTEST_SLOWDOWN_WITH"] = "NCCL_BUFFSIZE=4194304:" + ("3" if o.scenario == "regress" else "0.3")
        args += ["--profile", prof]
    p, text = run(args)
    print(p.stdout)
    expected_rc = 4 if o.scenario == "regress" else 0
    check(p.returncode == expected_rc, f"exit status {expected_rc}", text)

    # What the workers issued: every rank's worker prepared the same step in every round.
    files = sorted(glob.glob(record + ".rank*"))
    check([os.path.basename(f) for f in files] == ["step.rank0", "step.rank1"], "both NCCL ranks recorded the step", files)
    groups = rounds * (1 if o.scenario == "defaults" else 2)
    for f in files:
        lines = open(f).read().splitlines()
        check(lines == STEP * groups, f"{os.path.basename(f)}: the DDP step in capture order, once per run ({groups})", lines)

    step_lines = [l for l in p.stdout.splitlines() if l.startswith("step time: NCCL defaults ")]
    check(len(step_lines) == 1, "one step time line", text)
    check_ab_document(os.path.join(out, "replay.json"))
    doc = json.load(open(os.path.join(out, "replay.json")))
    check(doc["schema"] == "cctune.replay/1" and doc["nranks"] == 2 and doc["rounds"] == rounds, "replay.json: schema, ranks, rounds", doc)
    check([(c["collective"], c["dtype"], c["count"], c["repeats"]) for c in doc["calls"]] ==
          [("allreduce", "float32", 2108426, 1), ("allreduce", "float32", 2099200, 1)], "replay.json: the calls", doc["calls"])
    times = doc["default_step_ms"]
    # The stand-in sleeps 2 us + bytes/20 ns per call: ~0.84 ms for the step, never less.
    check(len(times) == rounds and all(t is not None and t >= 0.8 for t in times), "a default step time per round, the calls' sum", times)
    if o.scenario == "defaults":
        check("profile_step_ms" not in doc and len(doc["default_ci_ms"]) == 2, "defaults only: no profile side, an interval", doc)
        # A second replay into the same -o keeps the first one's results (review N1: a replay once
        # replaced a sweep's 31 832 points); --force replaces them.
        before = open(os.path.join(out, "results.json"), "rb").read()
        p, text = run(args, timeout=120)
        errors = [l for l in p.stderr.splitlines() if l.startswith("cctune")]
        check(p.returncode == 2 and errors and "results.json exists" in errors[0] and "--force" in errors[0],
              "a second replay into the same -o is refused in one line naming --force", text)
        check(open(os.path.join(out, "results.json"), "rb").read() == before, "the first replay's results.json is untouched", text)
        p, text = run(args + ["--force"])
        check(p.returncode == 0 and open(os.path.join(out, "results.json"), "rb").read() != before, "--force replaces them", text)
        return
    check("-> profile " in step_lines[0], "the line compares defaults with the profile", step_lines)
    ratio = doc["profile_median_ms"] / doc["default_median_ms"]
    if o.scenario == "regress":
        check(doc["step"]["verdict"] == "slower" and doc["regressed"] and 2 < ratio < 4, "slower verdict, profile ~3x the default", doc)
    else:
        check(doc["step"]["verdict"] == "faster" and not doc["regressed"] and ratio < 0.6, "faster verdict, profile well under the default", doc)
    step = doc["step"]
    check(step["ci_low"] <= step["speedup"] <= step["ci_high"], "the speedup lies in its interval", doc)


def check_groups(run, wl, out, record):
    rounds = 2
    p, text = run([wl, "-o", out, "--rounds", str(rounds), "--max-time", "0.05", "--min-iters", "10"])
    print(p.stdout)
    check(p.returncode == 0, "exit status 0", text)
    listing = [l for l in p.stdout.splitlines() if l.startswith("  ")]
    check(p.stdout.startswith("# replay: one step on 2 ranks, 1 call shapes and 2 groups, in capture order\n"), "the step's header", text)
    check(listing == ["  1 x group of 2: allgather bfloat16 16 KiB (4096 elements), allgather bfloat16 8 KiB (2048 elements) on 0xfeed",
                      "  2 x group of 2: reducescatter float32 512 KiB (65536 elements), allreduce float32 1 MiB (262144 elements) on 0xfeed",
                      "  2 x allreduce float32 1 MiB (262144 elements) on 0xfeed"], "the step as printed", listing)
    check("# note: group of 2 starting with send int8 1 KiB on 0xfeed left out: it holds sends or receives, which are not replayed\n"
          in p.stdout,
          "the send/recv group is left out, said", text)
    files = sorted(glob.glob(record + ".rank*"))
    check([os.path.basename(f) for f in files] == ["step.rank0", "step.rank1"], "both NCCL ranks recorded the step", files)
    for f in files:
        lines = open(f).read().splitlines()
        check(lines == GROUPED_STEP * rounds, f"{os.path.basename(f)}: groups issued as units, in order, with their repeats", lines)
    doc = json.load(open(os.path.join(out, "replay.json")))
    check([(c["collective"], c["dtype"], c["count"], c["repeats"], c.get("group")) for c in doc["calls"]] ==
          [("allgather", "bfloat16", 4096, 1, 0), ("allgather", "bfloat16", 2048, 1, 0), ("reducescatter", "float32", 65536, 2, 1),
           ("allreduce", "float32", 262144, 2, 1), ("allreduce", "float32", 262144, 2, None)], "replay.json: the calls and their groups",
          doc["calls"])


if __name__ == "__main__":
    main()
