#!/usr/bin/env python3
"""The table of bench/profiler_overhead.sh: per size the median time of the runs without and
with the profiler half, the difference of the medians with a 95 % bootstrap interval, the
paired median (each run's or round's own on minus off) and a verdict, then the host time per
recorded call from profiler_events_bench.

The verdict is on the paired median: within max(1 %, 0.3 us) of the "off" median. The runs or
rounds are interleaved so that each pair shares the host's pace of the moment; the paired
median keeps that, while the difference of the medians mixes pairs taken at different paces
(the lent hosts switch between about 10 and about 18 us per call for seconds at a time), and
reads over the bound when a size's rounds straddle a switch. A size where only the difference
of the medians is over the bound says so ("PASS, medians over").

With 2 GPUs or more every "on" run's workload file must have recorded AllReduce calls. With
one GPU (one rank: NCCL emits no profiler events) none can, and the table compares a loaded,
idle profiler with none; recording's cost is then judged by the event bench alone: the
launching thread's time per collective must be under 0.3 us.

    overhead_table.py OUTDIR RUNS [GPUS]

With OVERHEAD_FLOOR=1 in the environment the "on" side ran the floor profiler
(bench/profiler_floor.cpp: the same API events, nothing done with them): nothing is recorded,
so no workload file is checked, and the table is NCCL's own share of the cost.

Reads OUTDIR/{off,on}.RUN.csv, OUTDIR/workload.RUN/workload.*.json and OUTDIR/events.json
(Google Benchmark's JSON, when the bench ran); writes OUTDIR/summary.txt.
Exit 1 when a size fails, a multi-GPU run recorded nothing, or recording costs the launching
thread 0.3 us or more."""
import csv
import glob
import json
import os
import random
import statistics
import sys

from bench_stats import ci95, within_tolerance


def times(path):
    """The reference's CSV; lines before its header (a library's banner) are not data."""
    with open(path) as f:
        lines = f.read().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("size_bytes,"))
    return {int(r["size_bytes"]): float(r["time_us"]) for r in csv.DictReader(lines[start:])}


def recorded_calls(run_dir):
    """AllReduce calls the profiler half wrote down in one run (all its files)."""
    total = 0
    for path in glob.glob(f"{run_dir}/workload.*.json"):
        with open(path) as f:
            doc = json.load(f)
        for comm in doc.get("communicators", []):
            for call in comm.get("calls", []):
                if call.get("collective") == "allreduce":
                    total += call.get("calls", 0)
    return total


def event_lines(out, problems, required):
    """Host time per recorded call (median CPU time of the repetitions), from events.json."""
    try:
        with open(f"{out}/events.json") as f:
            rows = json.load(f)["benchmarks"]
    except (OSError, ValueError, KeyError):
        if required:
            problems.append("no profiler_events_bench figures: recording's cost is unmeasured on one GPU")
        return ["host time per recorded call: not measured (profiler_events_bench did not run)"]
    # Cold benchmarks time the call alone by hand (manual time: wall ns, the clock's own cost in
    # it); their CPU time is their cache walk's. They are shown net of BM_ColdClockOnly.
    medians = {}
    for r in rows:
        if r.get("aggregate_name") != "median" or r.get("time_unit") != "ns":
            continue
        manual = r["run_name"].endswith("/manual_time")
        medians[r["run_name"]] = r["real_time"] if manual else r["cpu_time"]
    launch = medians.get("BM_CollectiveLaunchThread")
    lines = ["host time per recorded call (profiler_events_bench, CPU ns, median of repetitions):"]
    for name, ns in sorted(medians.items()):
        if name.startswith("BM_ColdClockOnly"):
            continue
        if name.startswith("BM_ColdLaunchThread/"):
            walk = name.split("/")[1]
            clock = next((v for k, v in medians.items() if k.startswith(f"BM_ColdClockOnly/{walk}/")), None)
            evicted = "L1" if int(walk) <= 64 << 10 else "L2"
            net = f"{ns - clock:>9.1f} ns  (caches evicted past {evicted}: {int(walk) >> 10} KiB walked; wall, net of the clock's {clock:.1f})" \
                if clock is not None else f"{ns:>9.1f} ns  (wall, the clock's cost included)"
            lines.append(f"  {'BM_ColdLaunchThread/' + walk:<28}{net}")
            continue
        lines.append(f"  {name:<28}{ns:>9.1f} ns")
    if launch is None:
        problems.append("profiler_events_bench gave no BM_CollectiveLaunchThread figure")
    elif launch >= 300:
        problems.append(f"recording costs the launching thread {launch:.0f} ns per collective (limit 300)")
    else:
        lines.append(f"  launching thread per collective: {launch:.1f} ns < 300 ns: PASS"
                     " (kernel-channel events are handled on NCCL's proxy thread)")
    return lines


def main():
    out, runs = sys.argv[1], int(sys.argv[2])
    gpus = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    floor = os.environ.get("OVERHEAD_FLOOR") == "1"
    records = gpus != 1 and not floor  # only the real plugin on two ranks or more leaves a file to check
    off, on, problems = {}, {}, []
    for run in range(1, runs + 1):
        for size, t in times(f"{out}/off.{run}.csv").items():
            off.setdefault(size, []).append(t)
        for size, t in times(f"{out}/on.{run}.csv").items():
            on.setdefault(size, []).append(t)
        if records and not os.path.isdir(f"{out}/workload.ab") and recorded_calls(f"{out}/workload.{run}") == 0:
            problems.append(f"run {run}: the profiler half recorded no AllReduce call")
    # In-process A/B: the "on" rounds share one file (the last round's, written as NCCL unloads
    # the plugin); the INIT lines counted by the script show each round loaded it.
    if records and os.path.isdir(f"{out}/workload.ab") and recorded_calls(f"{out}/workload.ab") == 0:
        problems.append("the profiler half recorded no AllReduce call in the A/B rounds")
    rng = random.Random(1)
    # paired_us: the median of each run's own difference (on minus off of the same run or
    # round): the verdict's figure (the docstring says why).
    lines = [f"{'size_B':>11}{'off_us':>10}{'on_us':>10}{'diff_us':>9}{'ratio':>7}{'ci95_us':>17}{'paired_us':>11}  verdict"
             f"   (medians of {runs} interleaved runs)"]
    for size in sorted(set(off) & set(on)):
        a, b = statistics.median(off[size]), statistics.median(on[size])
        lo, hi = ci95(off[size], on[size], rng)
        paired = statistics.median(y - x for x, y in zip(off[size], on[size]))
        ok = within_tolerance(a, a + paired)
        if not ok:
            problems.append(f"{size} B: {paired:+.2f} us (paired)")
        if ok:
            verdict = "PASS" if within_tolerance(a, b) else "PASS, medians over"
        else:
            verdict = "FAIL (ci95 holds 0)" if lo <= 0 <= hi else "FAIL"
        lines.append(f"{size:>11}{a:>10.2f}{b:>10.2f}{b - a:>+9.2f}{b / a:>7.3f}  [{lo:+6.2f},{hi:+6.2f}]{paired:>+11.2f}  {verdict}")
    sizes = len(lines) - 1
    if gpus == 1:
        lines.append("one GPU, one rank: NCCL emits no profiler events, so 'on' is the profiler loaded and idle")
    if floor:
        lines.append("floor: 'on' is a profiler asking NCCL for the same API events and doing nothing with them (NCCL's own share)")
    else:
        lines += event_lines(out, problems, required=gpus == 1)
    with open(f"{out}/summary.txt", "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    if problems:
        print("profiler_overhead: FAIL (" + "; ".join(problems) + ")")
        return 1
    print(f"profiler_overhead: PASS ({sizes} sizes within max(1 %, 0.3 us) of the run without the profiler half)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
