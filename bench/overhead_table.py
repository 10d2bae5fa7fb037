#!/usr/bin/env python3
"""The table of bench/profiler_overhead.sh: per size the median time of the runs without and
with the profiler half, the difference with a 95 % bootstrap interval and a verdict (within
max(1 %, 0.3 us)). It first checks that every "on" run's workload file recorded AllReduce calls.

    overhead_table.py OUTDIR RUNS [GPUS]

Reads OUTDIR/{off,on}.RUN.csv and OUTDIR/workload.RUN/workload.*.json; writes OUTDIR/summary.txt.
Exit 1 when a size fails or a run recorded nothing."""
import csv
import glob
import json
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


def main():
    out, runs = sys.argv[1], int(sys.argv[2])
    gpus = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    off, on, problems = {}, {}, []
    for run in range(1, runs + 1):
        for size, t in times(f"{out}/off.{run}.csv").items():
            off.setdefault(size, []).append(t)
        for size, t in times(f"{out}/on.{run}.csv").items():
            on.setdefault(size, []).append(t)
        calls = recorded_calls(f"{out}/workload.{run}")
        if calls == 0:
            why = " (one GPU: NCCL's one-rank path emits no profiler events; run on 2 GPUs or more)" if gpus == 1 else ""
            problems.append(f"run {run}: the profiler half recorded no AllReduce call{why}")
    rng = random.Random(1)
    lines = [f"{'size_B':>11}{'off_us':>10}{'on_us':>10}{'diff_us':>9}{'ratio':>7}{'ci95_us':>17}  verdict   (medians of {runs} interleaved runs)"]
    for size in sorted(set(off) & set(on)):
        a, b = statistics.median(off[size]), statistics.median(on[size])
        lo, hi = ci95(off[size], on[size], rng)
        ok = within_tolerance(a, b)
        if not ok:
            problems.append(f"{size} B: {b - a:+.2f} us")
        verdict = "PASS" if ok else ("FAIL (ci95 holds 0)" if lo <= 0 <= hi else "FAIL")
        lines.append(f"{size:>11}{a:>10.2f}{b:>10.2f}{b - a:>+9.2f}{b / a:>7.3f}  [{lo:+6.2f},{hi:+6.2f}]  {verdict}")
    with open(f"{out}/summary.txt", "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    if problems:
        print("profiler_overhead: FAIL (" + "; ".join(problems) + ")")
        return 1
    print(f"profiler_overhead: PASS ({len(lines) - 1} sizes within max(1 %, 0.3 us) of the run without the profiler half)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
