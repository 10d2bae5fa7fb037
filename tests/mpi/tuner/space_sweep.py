#!/usr/bin/env python3
"""`cctune sweep --space`: the plan (--dry-run), bad inputs, and both search strategies end to
end with real supervisor and worker processes. Workers run the selftest stand-in module under
the sweep control, as NCCL runs; its CCTUNE_SELFTEST_CONFIG_FACTORS makes one config the known
fastest when the tuner plugin really made it run, so a strategy that
does not find it fails the test.

  space_sweep.py SCENARIO --cctune PATH --mpiexec PATH --workdir DIR
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

BEST = "ring/ll128/16"
# Every op ~0.5 ms (the selftest's 2 us x 250: sleeps that long are steady), the best config
# twice as fast, tree/ll slower.
FACTORS = {"CCTUNE_SELFTEST_SLOWDOWN": "250", "CCTUNE_SELFTEST_CONFIG_FACTORS": f"{BEST}=0.5,tree/ll=1.5"}

SPACE = {
    "schema": "cctune.space/1",
    "name": "test-small",
    "description": "a small space for the test",
    "collectives": ["allreduce", "allgather"],
    "sizes": {"min": "8", "max": "64K", "factor": 8},
    "dtype": "float32",
    "algorithms": ["auto", "ring", "tree"],
    "protocols": ["auto", "ll", "ll128", "simple"],
    "channels": [0, 16],
    "groups": [{"name": "default", "env": {}},
               {"name": "far-only", "env": {"NCCL_IB_QPS_PER_CONNECTION": "4"}, "requires": ["net"]}],
    "measure": {"warmup": 2, "min_iters": 10, "max_time_s": 0.05, "target_noise": 0.05},
    "strategy": "halving",
}


def check(cond, what, detail=""):
    if not cond:
        print(f"FAILED: {what}\n{detail}")
        sys.exit(1)
    print(f"ok: {what}")


def run(opts, args, env=None, np=None):
    e = dict(os.environ)
    # The test-only NCCL module stand-in, built beside the cctune under test.
    module = os.path.join(os.path.dirname(os.path.abspath(opts.cctune)), "tests", "libcctune-selftest.so")
    e.update({"CCTUNE_NCCL_MODULE": module, "CCTUNE_SELFTEST_GPUS": "4"})
    e.update(env or {})
    e = {k: v for k, v in e.items() if v is not None}
    cmd = [opts.cctune, "sweep"] + args
    if np:
        cmd = [opts.mpiexec, "--allow-run-as-root", "--oversubscribe", "-np", str(np)] + cmd
    t0 = time.monotonic()
    p = subprocess.run(cmd, env=e, capture_output=True, text=True, timeout=240)
    p.seconds = time.monotonic() - t0
    p.detail = f"cmd: {' '.join(cmd)}\nrc={p.returncode}\n--- stdout\n{p.stdout[-4000:]}\n--- stderr\n{p.stderr[-4000:]}"
    return p


def space_file(opts, overrides=None):
    doc = dict(SPACE, **(overrides or {}))
    path = os.path.join(opts.workdir, "space.json")
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def cfg(c):
    s = "auto" if c["algo"] == "auto" else f"{c['algo']}/{c['proto']}"
    return s + (f"/{c['channels']}" if c["channels"] else "")


def dry_run(opts):
    out = os.path.join(opts.workdir, "dry-out")
    p = run(opts, ["--space", "default", "--dry-run", "-o", out])
    check(p.returncode == 0, "dry run exits 0", p.detail)
    text = p.stdout
    for part in ["# space default, strategy halving", "group default: (NCCL defaults)", "group channels-32: NCCL_MAX_CTAS=32 NCCL_MIN_CTAS=32",
                 "group ib-qps-4: skipped: matters only across nodes", "skip ", "PAT needs one GPU per node (here 4 ranks on 1 node(s))",
                 "points to measure", "estimated", "with halving",
                 # all nine collectives (issue 16): p2p ones with NCCL's choice only, p2p groups
                 "NCCL's point-to-point path (alltoall) ignores the tuner plugin", "(sendrecv)", "(gather)", "(scatter)",
                 "NCCL runs broadcast with ring only", "NCCL runs reduce with ring only",
                 "group p2p-nvl-chunk-1M: NCCL_P2P_NVL_CHUNKSIZE=1048576",
                 "group p2p-channels-32: NCCL_MAX_P2P_NCHANNELS=32 NCCL_MIN_P2P_NCHANNELS=32",
                 "group p2p-net-chunk-512K: skipped: matters only across nodes",
                 "group net-peer-channels-4: skipped: matters only across nodes",
                 # transport groups (issue 35): one node, so neither sockets nor the network
                 "group sockets-4x4: skipped: matters only across nodes (NCCL's socket transport); this job has 1 node",
                 "group net-gdr-level-sys: skipped: matters only across nodes",
                 "group p2p-level-sys: skipped: matters only where GPUs lack NVLink"]:
        check(part in text, f"plan mentions {part!r}", p.detail)
    check(not os.path.exists(out), "a dry run writes nothing")
    # Two emulated nodes talk over NCCL's socket transport (NCCL_IB_DISABLE=1 makes it so on a
    # machine with RDMA NICs too): the socket groups are planned, the RDMA ones skipped.
    p = run(opts, ["--space", "default", "--dry-run", "--emulate-nodes", "2", "-o", out], env={"NCCL_IB_DISABLE": "1"})
    check(p.returncode == 0, "dry run on 2 emulated nodes exits 0", p.detail)
    for part in ["group sockets-2x2: NCCL_NSOCKS_PERTHREAD=2 NCCL_SOCKET_NTHREADS=2", "group sockets-4x4: NCCL_NSOCKS_PERTHREAD=4 NCCL_SOCKET_NTHREADS=4",
                 "group sockets-8x8: NCCL_NSOCKS_PERTHREAD=8 NCCL_SOCKET_NTHREADS=8", "group p2p-net-chunk-512K: NCCL_P2P_NET_CHUNKSIZE=524288",
                 "group ib-qps-4: skipped: ", "group net-gdr-level-sys: skipped: "]:
        check(part in p.stdout, f"2-node plan mentions {part!r}", p.detail)
    # Without any GPU the plan still prints, and says the rank count is unknown.
    p = run(opts, ["--space", "quick", "--dry-run"], env={"CCTUNE_NCCL_MODULE": "/nonexistent/libcctune-nccl.so"})
    check(p.returncode == 0 and "rank count unknown" in p.stdout and "group default" in p.stdout, "dry run without GPUs", p.detail)
    p = run(opts, ["--space", "quick", "--strategy", "exhaustive", "--dry-run"])
    check("strategy exhaustive" in p.stdout, "--strategy overrides the space's strategy", p.detail)
    dry_run_lists_what_the_run_measures(opts)
    dry_run_lists_what_a_workload_sweep_measures(opts)


def planned_counts(text):
    """{group: points} from a dry run's "group NAME: ...\n  N points" lines."""
    counts, group = {}, None
    for line in text.splitlines():
        if line.startswith("group ") and ": skipped:" not in line:
            group = line[len("group "):].split(":")[0]
        elif group and line.startswith("  ") and " points" in line:
            counts[group] = int(line.split()[0])
            group = None
    return counts


def planned_then_measured(opts, flags, out_name, what):
    """The dry run of FLAGS, then the run itself: its points per group must be the dry run's.
    Returns the run's results.json runs."""
    p = run(opts, flags + ["--dry-run"])
    check(p.returncode == 0, f"dry run {what} exits 0", p.detail)
    planned = planned_counts(p.stdout)
    out = os.path.join(opts.workdir, out_name)
    r = run(opts, ["--backend", "nccl", "--no-tune", "-o", out] + flags)
    check(r.returncode == 0, f"the same sweep {what} measured ({r.seconds:.1f} s)", r.detail)
    with open(os.path.join(out, "results.json")) as f:
        runs = json.load(f)["runs"]
    measured = {x["group"]: len(x["points"]) for x in runs}
    check(planned == measured and measured, f"the dry run's points per group {planned} are the run's {measured}", p.stdout)
    return runs


def dry_run_lists_what_the_run_measures(opts):
    # Flags beside --space replace the space's collectives, sizes and placements and add the
    # second p2p implementation: the dry run must plan what the run then measures.
    flags = ["--space", space_file(opts), "--strategy", "exhaustive", "--collectives", "allreduce,alltoall", "-b", "64", "-e", "4K",
             "--placement", "both", "--p2p-impl", "both"]
    runs = planned_then_measured(opts, flags, "flags-out", "with flags beside --space")
    seen = {(x["collective"], x.get("impl"), x["in_place"], x["size_bytes"]) for x in runs[0]["points"]}
    check({c for c, _, _, _ in seen} == {"allreduce", "alltoall"} and {i for _, i, _, _ in seen} == {None, "native", "grouped"}
          and {ip for _, _, ip, _ in seen} == {False, True}, "the run measured the flags' collectives, implementations and placements",
          json.dumps(sorted(map(str, seen)))[:800])


WORKLOAD_CALLS = [("allreduce", "float32", 1024, 4096, {"op": "sum"}), ("allgather", "int32", 256, 4096, {})]


def workload_file(opts):
    records = [{"kind": "collective", "collective": c, "dtype": t, "count": n, "bytes": b, "calls": 4, "applied": [], **x}
               for c, t, n, b, x in WORKLOAD_CALLS]
    path = os.path.join(opts.workdir, "job.workload.json")
    with open(path, "w") as f:
        json.dump({"schema": "cctune.workload/1", "format": "nccl-log", "sources": ["job.log"], "steps": 4,
                   "communicators": [{"id": "0x1", "nranks": 4, "nnodes": 1, "ranks": [0, 1, 2, 3], "calls": records}]}, f)
    return path


def dry_run_lists_what_a_workload_sweep_measures(opts):
    # --workload beside --space: the run measures the job's shapes only (not the product of
    # their collectives, types and sizes), and the dry run must plan exactly those points (the
    # grid: --budget-s 0, since a workload sweep races its groups by default).
    flags = ["--space", space_file(opts), "--strategy", "exhaustive", "--workload", workload_file(opts), "--budget-s", "0"]
    runs = planned_then_measured(opts, flags, "workload-out", "of a workload beside --space")
    shapes = {(x["collective"], x["dtype"], x["size_bytes"]) for run in runs for x in run["points"]}
    check(shapes == {(c, t, b) for c, t, _, b, _ in WORKLOAD_CALLS}, f"the run measured the job's shapes only: {sorted(shapes)}")


def bad_inputs(opts):
    cases = [
        (["--space", "nope", "--dry-run"], 2, ["no search space named \"nope\"", "default, exhaustive, quick"]),
        (["--space", space_file(opts, {"protocols": ["auto", "fast"]}), "--dry-run"], 2, ["space.json", "\"protocols\"", "fast"]),
        (["--space", "quick", "--configs", "auto,ring/ll"], 2, ["--configs cannot be combined with --space"]),
        (["--space", "quick", "--env-group", "x:NCCL_BUFFSIZE=1"], 2, ["--env-group cannot be combined with --space"]),
        (["--space", "quick", "--strategy", "random"], 2, ["--strategy 'random' is unknown"]),
        (["--dry-run"], 2, ["--dry-run", "needs --space"]),
        (["--space", "quick", "--backend", "mpi"], 2, ["needs the NCCL backend"]),
    ]
    for args, code, parts in cases:
        p = run(opts, args + ["-o", os.path.join(opts.workdir, "bad")])
        lines = [l for l in p.stderr.splitlines() if l.strip()]
        check(p.returncode == code and len(lines) == 1 and all(x in p.stderr for x in parts),
              f"{' '.join(args[:4])}: one line, exit {code}", p.detail)
    p = run(opts, ["--space", "quick", "-o", os.path.join(opts.workdir, "bad")], env={"CCTUNE_SELFTEST_GPUS": "0"})
    lines = [l for l in p.stderr.splitlines() if l.strip()]
    check(p.returncode == 3 and len(lines) == 1 and "no GPU is visible" in p.stderr, "--space where no GPU is visible: one line, exit 3", p.detail)


def race(opts):
    """--budget-s races the groups: every group once at NCCL's own choice, then the forced configs in
    the chosen group alone; results.json holds one run per group. A workload sweep races by default."""
    groups = [{"name": "default", "env": {}}, {"name": "same", "env": {"NCCL_BUFFSIZE": "8388608"}},
              {"name": "fast", "env": {"NCCL_P2P_NVL_CHUNKSIZE": "1048576"}}, {"name": "far-only", "env": {"NCCL_IB_QPS_PER_CONNECTION": "4"},
                                                                             "requires": ["net"]}]
    path = space_file(opts, {"groups": groups})
    # The fast group's setting halves every operation's time, as a real NCCL setting changes NCCL's speed.
    env = {"CCTUNE_SELFTEST_SLOWDOWN": "250", "CCTUNE_SELFTEST_SLOWDOWN_WITH": "NCCL_P2P_NVL_CHUNKSIZE=1048576:0.5",
           "CCTUNE_SELFTEST_NCCL_VERSION": "2.28.9"}
    # A workload's weights without the job's step time: tune withholds every group (do_no_harm), so the
    # variants run in the reference there; the grid decides by collective time and picks the fast one.
    for name, extra, chosen in [("race-grid", ["--budget-s", "60"], "fast"), ("race-workload", ["--workload", workload_file(opts)], "default")]:
        out = os.path.join(opts.workdir, name)
        shutil.rmtree(out, ignore_errors=True)
        p = run(opts, ["--backend", "nccl", "--space", path, "--no-tune", "-o", out] + extra, env=env)
        check(p.returncode == 0, f"{name}: the race exits 0 ({p.seconds:.1f} s)", p.detail)
        check("# race: 3 group(s) at NCCL's own choice first" in p.stdout and "# race round 0 done" in p.stdout,
              f"{name}: the race says how it starts and what each round decided", p.detail)
        check(f"algorithm/protocol/channel points of group {chosen} at" in p.stdout, f"{name}: the variants run in group {chosen}", p.detail)
        with open(os.path.join(out, "results.json")) as f:
            runs = json.load(f)["runs"]
        by_group = {r["group"]: r for r in runs}
        check(len(runs) == 3 and set(by_group) == {"default", "same", "fast"}, f"{name}: one run per group in results.json",
              json.dumps([(r["group"], r.get("race_round")) for r in runs]))
        forced = {g: {cfg(x["config"]) for x in r["points"]} - {"auto"} for g, r in by_group.items()}
        check([g for g, v in forced.items() if v] == [chosen] and by_group[chosen].get("race_round", 0) >= 1,
              f"{name}: forced configs measured in group {chosen} only", json.dumps({g: sorted(v) for g, v in forced.items()}))
        if chosen == "fast":
            t = subprocess.run([opts.cctune, "tune", os.path.join(out, "results.json"), "-o", os.path.join(out, "profile")],
                               capture_output=True, text=True, timeout=60)
            check(t.returncode == 0, f"{name}: tune reads the race's results", t.stdout + t.stderr)
            with open(os.path.join(out, "profile", "profile.json")) as f:
                profile = json.load(f)
            check(profile.get("env", {}).get("NCCL_P2P_NVL_CHUNKSIZE") == "1048576", f"{name}: the profile carries the fast group",
                  json.dumps(profile.get("env")))


def sweep_space(opts, strategy, np=None):
    out = os.path.join(opts.workdir, strategy)
    shutil.rmtree(out, ignore_errors=True)
    gpus = {"CCTUNE_SELFTEST_GPUS": "2" if np else "4"}
    p = run(opts, ["--backend", "nccl", "--space", space_file(opts), "--strategy", strategy, "--no-tune", "-o", out],
            env=dict(FACTORS, **gpus), np=np)
    check(p.returncode == 0, f"{strategy} sweep exits 0 ({p.seconds:.1f} s)", p.detail)
    with open(os.path.join(out, "results.json")) as f:
        return json.load(f), p


def choices(results):
    best = {}
    for runr in results["runs"]:
        for pt in runr["points"]:
            key = (runr["group"], pt["collective"], pt["size_bytes"])
            if pt["status"] == "ok" and (key not in best or pt["iter_us"]["median"] < best[key][1]):
                best[key] = (cfg(pt["config"]), pt["iter_us"]["median"])
    return best


def strategies(opts):
    exh, _ = sweep_space(opts, "exhaustive")
    fast, p = sweep_space(opts, "halving", np=2)
    space = fast["meta"]["settings"]["space"]
    check(space["name"] == "test-small" and space["strategy"] == "halving", "meta.settings.space names the space and strategy", json.dumps(space))
    groups = {g["name"]: g for g in space["groups"]}
    check("only across nodes" in groups["far-only"].get("skipped", ""), "the net-only group is skipped with its reason", json.dumps(space))
    skipped = groups["default"]["skipped_configs"]
    check(any(s["collective"] == "allgather" and s["config"]["algo"] == "tree" and "allreduce only" in s["reason"] for s in skipped),
          "tree allgather is a planned skip with NCCL's reason", json.dumps(skipped)[:500])
    for res, name in [(exh, "exhaustive"), (fast, "halving")]:
        check([r["group"] for r in res["runs"]] == ["default"], f"{name}: one group ran")
        points = res["runs"][0]["points"]
        check(not any(p["collective"] == "allgather" and p["config"]["algo"] == "tree" for p in points), f"{name}: no tree allgather point")
        picks = choices(res)
        wrong = {k: v for k, v in picks.items() if v[0] != BEST}
        check(not wrong, f"{name}: {BEST} is the choice at every size ({len(picks)} sizes)", json.dumps({str(k): v for k, v in wrong.items()}))
    fast_run = fast["runs"][0]
    screened = fast_run.get("screened", [])
    check(screened and all(p.get("screen_round") in (0, 1) for p in screened), f"halving: {len(screened)} screening points with their round")
    autos = {(p["collective"], p["size_bytes"]) for p in fast_run["points"] if p["config"]["algo"] == "auto" and p["config"]["channels"] == 0}
    sizes = {(p["collective"], p["size_bytes"]) for p in fast_run["points"]}
    check(autos == sizes, "halving: NCCL's default is fully measured at every size (the tune baseline)")
    full_exh = len(exh["runs"][0]["points"])
    full_fast = len(fast_run["points"])
    check(full_fast * 2 < full_exh, f"halving measures far fewer points fully ({full_fast} against {full_exh})")
    check("ring/ll128/16" in p.stdout, "the table names forced configurations", p.stdout[-2000:])
    check("screen_round" not in json.dumps(fast_run["points"]), "full points carry no screen_round")


def confirmation(opts):
    """The sweep's confirmation round: rules the production plugin reproduces are kept; a win
    only the sweep's own control measured (CCTUNE_SELFTEST_FACTORS_IN_SWEEP_ONLY) is dropped."""
    env = dict(FACTORS, CCTUNE_SELFTEST_GPUS="2", CCTUNE_SELFTEST_NCCL_VERSION="2.28.9")
    space = space_file(opts, {"collectives": ["allreduce"], "sizes": {"min": "8", "max": "4K", "factor": 8}})

    def sweep(name, extra_env=None, rounds="6"):  # fewer rounds decide nothing (issue 43)
        out = os.path.join(opts.workdir, name)
        p = run(opts, ["--backend", "nccl", "--space", space, "--confirm-rounds", rounds, "-o", out],
                env=dict(env, **(extra_env or {})), np=2)
        check(p.returncode == 0, f"{name}: sweep exits 0 ({p.seconds:.1f} s)", p.detail)
        with open(os.path.join(out, "profile.json")) as f:
            return out, json.load(f), p

    out, profile, p = sweep("kept")
    rules = profile["rules"]
    check(rules and all(r["algo"] == "ring" and r["proto"] == "ll128" for r in rules), f"kept: {BEST} rules written", json.dumps(rules))
    check("# confirmation round: 4 rule size(s)" in p.stdout and "4 of 4 rule size(s) read faster" in p.stdout,
          "kept: the round measures the 4 proposed sizes and reads each faster", p.stdout[-3000:])
    with open(os.path.join(out, "confirm", "results.json")) as f:
        round_runs = json.load(f)["runs"]
    check([r["group"] for r in round_runs] == ["default", "profile", "profile", "default"] * 3,
          "kept: 6 interleaved rounds of default and profile, alternating order", str([r["group"] for r in round_runs]))
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    from plumbing import check_ab_document  # noqa: E402  (the A/B tests' schema check)
    check_ab_document(os.path.join(out, "confirm", "confirmation.json"))
    with open(os.path.join(out, "confirm", "confirmation.json")) as f:
        conf = json.load(f)
    check(conf["schema"] == "cctune.confirmation/1" and all(r["verdict"] == "faster" for r in conf["rows"]) and len(conf["rows"]) == 4,
          "kept: confirmation.json holds a faster verdict per size", json.dumps(conf)[:1500])
    t = subprocess.run([opts.cctune, "tune", os.path.join(out, "results.json"), "-o", os.path.join(opts.workdir, "kept-tune")],
                       capture_output=True, text=True, timeout=60)
    with open(os.path.join(opts.workdir, "kept-tune", "profile.json")) as f:
        check(json.load(f)["rules"] == rules and "4 of 4 rule size(s)" in t.stdout,
              "kept: cctune tune on the sweep's results writes the sweep's rules, reading its confirmation", t.stdout + t.stderr)

    conf_path = os.path.join(out, "confirm", "confirmation.json")
    with open(conf_path, "w") as f:
        f.write('{"schema": "cctune.confirmation/1", "rows": [')
    t = subprocess.run([opts.cctune, "tune", os.path.join(out, "results.json"), "-o", os.path.join(opts.workdir, "bad-tune")],
                       capture_output=True, text=True, timeout=60)
    err = t.stderr.strip().splitlines()
    check(t.returncode == 2 and len(err) == 1 and conf_path in err[0] and "not a JSON object" in err[0],
          "a malformed confirmation.json: one line naming it, exit 2", t.stdout + t.stderr)

    out, profile, p = sweep("dropped", {"CCTUNE_SELFTEST_FACTORS_IN_SWEEP_ONLY": "1"})
    check(profile["rules"] == [] and "0 of 4 rule size(s) read faster" in p.stdout,
          "dropped: a win the deployed plugin does not reproduce writes no rule", p.stdout[-3000:] + json.dumps(profile["rules"]))
    check(len(profile.get("measured_baseline", [])) == 4, "dropped: the profile still keeps NCCL's measured baseline at every size")
    with open(os.path.join(out, "confirm", "confirmation.json")) as f:
        verdicts = [r["verdict"] for r in json.load(f)["rows"]]
    check(verdicts == ["same"] * 4, "dropped: confirmation.json reads each size the same", str(verdicts))
    t = subprocess.run([opts.cctune, "tune", "-v", os.path.join(out, "results.json"), "-o", os.path.join(opts.workdir, "dropped-tune")],
                       capture_output=True, text=True, timeout=60)
    with open(os.path.join(opts.workdir, "dropped-tune", "profile.json")) as f:
        check(json.load(f)["rules"] == [] and "the confirmation round read the rule" in t.stdout,
              "dropped: cctune tune keeps NCCL's defaults too, and -v says why", t.stdout[-2000:] + t.stderr)

    # A confirmation of another sweep (the folder's earlier one) says nothing about these results.
    conf_path = os.path.join(out, "confirm", "confirmation.json")
    with open(conf_path) as f:
        conf = json.load(f)
    conf["sweep_start_time"] = "2020-01-01T00:00:00Z"
    with open(conf_path, "w") as f:
        json.dump(conf, f)
    t = subprocess.run([opts.cctune, "tune", os.path.join(out, "results.json"), "-o", os.path.join(opts.workdir, "stale-tune")],
                       capture_output=True, text=True, timeout=60)
    with open(os.path.join(opts.workdir, "stale-tune", "profile.json")) as f:
        check(json.load(f)["rules"] and "confirmation round" not in t.stdout,
              "a confirmation.json of another sweep is ignored: the rules come back unconfirmed", t.stdout + t.stderr)

    out, profile, p = sweep("unconfirmed", {"CCTUNE_SELFTEST_FACTORS_IN_SWEEP_ONLY": "1"}, "0")
    check(profile["rules"] and not os.path.exists(os.path.join(out, "confirm")),
          "--confirm-rounds 0: the proposed rules are written as measured, no round runs", json.dumps(profile["rules"]))


def overlap(opts):
    """sweep --overlap (docs/TUNING.md "Collectives beside compute"): a CTA group whose collective is
    faster (CCTUNE_SELFTEST_SLOWDOWN_WITH) is judged by collective + compute. Where its compute
    cost (CCTUNE_SELFTEST_OVERLAP_COST_WITH) eats the gain it is not deployed, and tune says so;
    where it does not, it is deployed, as the do-no-harm rule gives way to the measured sum."""
    ctas = "NCCL_MIN_CTAS=32"
    space = space_file(opts, {"collectives": ["allreduce"], "sizes": {"min": "1K", "max": "64K", "factor": 8},
                              "algorithms": ["auto"], "protocols": ["auto"], "channels": [0],
                              "groups": [{"name": "default", "env": {}},
                                         {"name": "channels-32", "env": {"NCCL_MIN_CTAS": "32", "NCCL_MAX_CTAS": "32"}}]})
    env = {"CCTUNE_SELFTEST_SLOWDOWN": "250", "CCTUNE_SELFTEST_SLOWDOWN_WITH": f"{ctas}:0.7", "CCTUNE_SELFTEST_GPUS": "2",
           "CCTUNE_SELFTEST_NCCL_VERSION": "2.28.9", "CCTUNE_SELFTEST_OVERLAP_COST": "0.02"}

    def sweep_and_tune(name, cost):
        out = os.path.join(opts.workdir, name)
        p = run(opts, ["--backend", "nccl", "--space", space, "--overlap", "--no-tune", "-o", out],
                env=dict(env, CCTUNE_SELFTEST_OVERLAP_COST_WITH=f"{ctas}:{cost}"))
        check(p.returncode == 0, f"{name}: sweep --overlap exits 0 ({p.seconds:.1f} s)", p.detail)
        with open(os.path.join(out, "results.json")) as f:
            res = json.load(f)
        check(res["meta"]["settings"]["nccl"].get("overlap") is True, f"{name}: meta.settings.nccl.overlap is true")
        import jsonschema  # noqa: E402  (the results schema holds points[].overlap)
        schema_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "configs", "schema", "results.schema.json")
        with open(schema_path) as f:
            errors = [e.message for e in jsonschema.Draft202012Validator(json.load(f)).iter_errors(res)][:3]
        check(not errors, f"{name}: results.json satisfies its schema", "\n".join(errors))
        for runr in res["runs"]:
            want = 1 + (cost if runr["group"] == "channels-32" else 0.02)
            for pt in runr["points"]:
                o = pt.get("overlap")
                check(o and o["rounds"] > 0 and abs(o["compute_slowdown"] - want) < 1e-9 and
                      abs(o["compute_us"] - pt["batch_us"] * (1 - 1 / want)) < 1e-6 * pt["batch_us"],
                      f"{name}: {runr['group']} {pt['size_bytes']} B carries overlap figures", json.dumps(pt)[:800])
        t = subprocess.run([opts.cctune, "tune", os.path.join(out, "results.json"), "-o", os.path.join(out, "tuned")],
                           capture_output=True, text=True, timeout=60)
        check(t.returncode == 0, f"{name}: tune exits 0", t.stdout + t.stderr)
        with open(os.path.join(out, "tuned", "profile.json")) as f:
            return json.load(f), t.stdout

    profile, text = sweep_and_tune("loses", 2.0)  # compute 3x slower beside it: 0.7 + 0.47 > 1.0
    check("NCCL_MIN_CTAS" not in profile["env"], "loses: the CTA group is not deployed", json.dumps(profile["env"]))
    check("group channels-32 wins on collective time alone" in text and "not on collective + compute" in text,
          "loses: tune says it wins on collective time alone but not with the compute", text[-3000:])
    check("not deployed: group channels-32" not in text, "loses: not the collective-only rule's withholding", text[-3000:])
    profile, text = sweep_and_tune("wins", 0.02)  # the same compute cost as the default's
    check(profile["env"].get("NCCL_MIN_CTAS") == "32", "wins: the CTA group is deployed", json.dumps(profile["env"]) + text[-3000:])
    check("group channels-32 takes SMs and was measured beside compute (--overlap): deployed" in text,
          "wins: tune says why it is deployed", text[-3000:])
    check("measured beside compute (--overlap): scored by collective + compute" in text, "wins: the scores say how they were made")

    # Not a workload sweep's default (docs/TUNING.md says why): a workload sweep without the flag
    # measures the collectives alone, even when its capture's step is mostly compute.
    records = [{"kind": "collective", "collective": c, "dtype": t, "count": n, "bytes": b if c == "allreduce" else b // 2, "calls": 8, "applied": [],
                "duration_us": {"samples": 8, "sum": 800, "min": 100, "max": 100}, **x} for c, t, n, b, x in WORKLOAD_CALLS]
    path = os.path.join(opts.workdir, "job.workload.json")
    with open(path, "w") as f:
        json.dump({"schema": "cctune.workload/1", "format": "nccl-log", "sources": ["job.log"], "steps": 4,
                   "communicators": [{"id": "0x1", "nranks": 2, "nnodes": 1, "ranks": [0, 1], "calls": records,
                                      "cadence": {"calls_per_step": 4, "steps": 4, "timed_steps": 3, "step_ms": 2.0}}]}, f)
    out = os.path.join(opts.workdir, "wl")
    p = run(opts, ["--backend", "nccl", "--workload", path, "--max-time", "0.05", "--no-tune", "-o", out], env={"CCTUNE_SELFTEST_GPUS": "2"})
    check(p.returncode == 0, "a workload sweep without --overlap runs", p.detail)
    if p.returncode == 0:
        res = json.load(open(os.path.join(out, "results.json")))
        check(not res["meta"]["settings"]["nccl"].get("overlap") and
              all("overlap" not in pt for r in res["runs"] for pt in r["points"]),
              "a workload sweep without --overlap: no compute load, no overlap figures", json.dumps(res["meta"]["settings"])[:800])

    p = run(opts, ["--backend", "mpi", "--overlap", "-b", "8", "-e", "8", "-o", os.path.join(opts.workdir, "mpi")])
    err = p.stderr.strip().splitlines()
    check(p.returncode == 2 and len(err) == 1 and "--overlap" in err[0] and "NCCL backend" in err[0],
          "--overlap with the MPI backend: one line, exit 2", p.detail)
    p = run(opts, ["--backend", "nccl", "--overlap", "sometimes", "-b", "8", "-e", "8", "-o", os.path.join(opts.workdir, "bad")],
            env={"CCTUNE_SELFTEST_GPUS": "2"})
    check(p.returncode == 2 and "--overlap 'sometimes' is unknown" in p.stderr, "--overlap sometimes: refused", p.detail)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("scenario", choices=["dry_run", "bad_inputs", "strategies", "confirmation", "race", "overlap"])
    ap.add_argument("--cctune", required=True)
    ap.add_argument("--mpiexec", required=True)
    ap.add_argument("--workdir", required=True)
    opts = ap.parse_args()
    opts.workdir = os.path.join(opts.workdir, opts.scenario)
    shutil.rmtree(opts.workdir, ignore_errors=True)
    os.makedirs(opts.workdir)
    globals()[opts.scenario](opts)


if __name__ == "__main__":
    main()
