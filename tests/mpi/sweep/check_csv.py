#!/usr/bin/env python3
"""Checks `cctune sweep --csv FILE` against the sweep's results.json: one row per point of
runs[].points, in order, every column equal to the point's field (numbers exactly: both
files hold the shortest text that reads back as the same double).

usage: check_csv.py RESULTS CSV [--min-rows N]
"""
import argparse
import csv
import json
import sys

REDUCTIONS = {"allreduce", "reduce", "reducescatter"}
COLUMNS = ["backend", "group", "collective", "algorithm", "protocol", "channels", "graph", "size_bytes", "count",
           "dtype", "op", "root", "in_place", "status", "time_us", "algbw_GBps", "busbw_GBps", "wrong", "median_us", "p99_us",
           "iterations", "stop_reason", "chosen_algorithm", "chosen_protocol", "chosen_channels", "reason"]


def fail(msg):
    print(f"check_csv: FAIL: {msg}")
    sys.exit(1)


def expected_row(run, p):
    # A point that was not measured (skipped, failed) has no times in results.json and
    # empty cells in the CSV.
    ok = p["status"] == "ok"
    def measured(get):
        return repr(float(get())) if ok else ""
    c = p["config"]
    chosen = p.get("chosen", {})  # what NCCL ran, where cctune's plugin saw it
    return {
        "backend": run["backend"], "group": run["group"], "collective": p["collective"], "algorithm": c["algo"],
        "protocol": c["proto"], "channels": str(c["channels"]), "graph": "1" if c["graph"] else "0",
        "size_bytes": str(p["size_bytes"]), "count": str(p["count"]), "dtype": p["dtype"],
        "op": p["op"] if p["collective"] in REDUCTIONS else "none", "root": str(p["root"]) if "root" in p else "",
        "in_place": "1" if p["in_place"] else "0",
        "status": p["status"], "time_us": measured(lambda: p["batch_us"]), "algbw_GBps": measured(lambda: p["algbw_GBps"]),
        "busbw_GBps": measured(lambda: p["busbw_GBps"]), "wrong": str(p["wrong"]) if ok and p["wrong"] >= 0 else "",
        "median_us": measured(lambda: p["iter_us"]["median"]), "p99_us": measured(lambda: p["iter_us"]["p99"]),
        "iterations": str(p.get("iterations", 0)), "stop_reason": p.get("stop_reason", ""),
        "chosen_algorithm": chosen.get("algo", ""), "chosen_protocol": chosen.get("proto", ""),
        "chosen_channels": str(chosen.get("channels", 0)), "reason": p.get("reason", ""),
    }


def same_number(a, b):
    try:
        return float(a) == float(b)
    except ValueError:
        return False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("csv")
    ap.add_argument("--min-rows", type=int, default=1)
    a = ap.parse_args()
    doc = json.load(open(a.results))
    with open(a.csv, newline="") as f:
        reader = csv.DictReader(f)
        if reader.fieldnames != COLUMNS:
            fail(f"header {reader.fieldnames}")
        rows = list(reader)
    points = [(run, p) for run in doc["runs"] for p in run["points"]]
    if len(rows) != len(points):
        fail(f"{len(rows)} rows for {len(points)} points of results.json")
    if len(rows) < a.min_rows:
        fail(f"only {len(rows)} rows")
    for i, (row, (run, p)) in enumerate(zip(rows, points)):
        want = expected_row(run, p)
        for col in COLUMNS:
            got, exp = row[col], want[col]
            if got != exp and not (exp and same_number(got, exp)):
                fail(f"row {i + 1} column {col}: {got!r}, results.json says {exp!r}")
    print(f"check_csv: OK: {len(rows)} rows match results.json point for point")


if __name__ == "__main__":
    main()
