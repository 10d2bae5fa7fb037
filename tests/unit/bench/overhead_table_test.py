#!/usr/bin/env python3
"""bench/overhead_table.py on made-up runs: the verdict follows the paired median, a size
whose rounds straddle a change of the host's pace passes with "medians over", a real cost
fails, the floor run needs no workload file, and cold event figures are shown net of the clock.

    overhead_table_test.py REPO_ROOT"""
import json
import os
import subprocess
import sys
import tempfile

ROOT = sys.argv[1]
TABLE = os.path.join(ROOT, "bench", "overhead_table.py")


def write_runs(out, rounds):
    """rounds: [(off_us, on_us), ...] for one size (8 B); a workload file with one AllReduce."""
    for run, (off, on) in enumerate(rounds, start=1):
        for side, t in (("off", off), ("on", on)):
            with open(f"{out}/{side}.{run}.csv", "w") as f:
                f.write(f"size_bytes,time_us,algbw_GBps,busbw_GBps\n8,{t},0,0\n")
    os.makedirs(f"{out}/workload.ab", exist_ok=True)
    with open(f"{out}/workload.ab/workload.h.1.json", "w") as f:
        json.dump({"communicators": [{"calls": [{"collective": "allreduce", "calls": 10}]}]}, f)


def run_table(out, runs, env=None):
    r = subprocess.run([sys.executable, TABLE, out, str(runs), "2"], capture_output=True, text=True,
                       env={**os.environ, **(env or {})})
    return r.returncode, r.stdout


def check(cond, what):
    if not cond:
        print(f"FAIL: {what}")
        sys.exit(1)


def main():
    with tempfile.TemporaryDirectory() as out:
        # The host switches pace in round 4, between its two sides: every other pair is +0.1 us,
        # and the medians land on either side of the switch (10 against 18.1 us).
        write_runs(out, [(10.0, 10.1)] * 3 + [(10.0, 18.1)] + [(18.0, 18.1)] * 3)
        rc, text = run_table(out, 7)
        check(rc == 0 and "PASS, medians over" in text, f"a straddled size passes on its pairs:\n{text}")
    with tempfile.TemporaryDirectory() as out:
        write_runs(out, [(10.0, 10.5)] * 9)  # +0.5 us in every pair: over max(1 %, 0.3 us)
        rc, text = run_table(out, 9)
        check(rc == 1 and "FAIL" in text and "+0.50 us (paired)" in text, f"a real cost fails:\n{text}")
    with tempfile.TemporaryDirectory() as out:
        write_runs(out, [(10.0, 10.05)] * 9)
        os.remove(f"{out}/workload.ab/workload.h.1.json")
        rc, text = run_table(out, 9)
        check(rc == 1 and "recorded no AllReduce" in text, f"the plugin's run must have recorded calls:\n{text}")
        rc, text = run_table(out, 9, {"OVERHEAD_FLOOR": "1"})
        check(rc == 0 and "NCCL's own share" in text, f"the floor run records nothing and needs no file:\n{text}")
    with tempfile.TemporaryDirectory() as out:
        write_runs(out, [(10.0, 10.05)] * 9)
        bench = [{"run_name": n, "aggregate_name": "median", "time_unit": "ns", "real_time": real, "cpu_time": cpu}
                 for n, real, cpu in (("BM_CollectiveLaunchThread", 40.0, 40.0),
                                      ("BM_ColdLaunchThread/65536/iterations:20000/manual_time", 100.0, 900.0),
                                      ("BM_ColdClockOnly/65536/iterations:20000/manual_time", 30.0, 800.0))]
        with open(f"{out}/events.json", "w") as f:
            json.dump({"benchmarks": bench}, f)
        rc, text = run_table(out, 9)
        check(rc == 0 and "70.0 ns  (caches evicted past L1" in text and "900" not in text,
              f"cold figures are wall time net of the clock:\n{text}")
    print("overhead_table_test: PASS")


if __name__ == "__main__":
    main()
