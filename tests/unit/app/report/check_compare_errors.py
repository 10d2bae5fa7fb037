#!/usr/bin/env python3
"""cctune compare/report on bad input: one-line errors naming the file, right exit codes,
and no crash on runs with failed groups. Usage: check_compare_errors.py CCTUNE FIXTURES_DIR"""
import json
import os
import subprocess
import sys
import tempfile

cctune, fx = sys.argv[1], sys.argv[2]
failures = []


def run(*args):
    p = subprocess.run([cctune, *args], cwd=fx, capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def expect_error(args, code, *needles):
    rc, out, err = run(*args)
    lines = err.strip().splitlines()
    if rc != code:
        failures.append(f"{args}: exit {rc}, expected {code}; stderr: {err!r}")
    elif len(lines) != 1 or not lines[0].startswith("cctune: error: "):
        failures.append(f"{args}: expected one 'cctune: error:' line, got {err!r}")
    else:
        for n in needles:
            if n not in lines[0]:
                failures.append(f"{args}: '{n}' missing from {lines[0]!r}")
    print(f"{' '.join(args)} -> {rc}: {err.strip()}")


expect_error(["compare", "mpi_shm.json", "bad_schema.json"], 2, "bad_schema.json", "cctune.results/99")
expect_error(["compare", "mpi_shm.json", "truncated.json"], 2, "truncated.json", "not valid JSON")
expect_error(["compare", "mpi_shm.json", "disjoint.json"], 2, "disjoint.json", "no collective/dtype/size in common")
expect_error(["report", "truncated.json", "-o", os.devnull], 2, "truncated.json")
expect_error(["compare", "mpi_shm.json", "mpi_tcp.json", "--labels", "a,b,c"], 2, "--labels has 3 names for 2 files")
expect_error(["compare", "mpi_shm.json", "mpi_np4.json", "--strict"], 2, "nranks differ")

# A malformed meta.settings (issue #23): the test mode is read through its typed accessor, so
# compare and report name the field in one line.
with tempfile.TemporaryDirectory() as d:
    doc = json.load(open(os.path.join(fx, "mpi_tcp.json")))
    doc["meta"]["settings"]["test_mode"] = 1
    bad = os.path.join(d, "bad_settings.json")
    json.dump(doc, open(bad, "w"))
    expect_error(["compare", "mpi_shm.json", bad], 2, "meta.settings.test_mode: expected a string, got an integer")
    expect_error(["report", "mpi_shm.json", bad, "-o", os.path.join(d, "r.html")], 2, "meta.settings.test_mode")

# A run with failed groups compares and reports without crashing, and says why it failed.
for args in (["compare", "mpi_shm.json", "failed_group.json"], ["compare", "failed_group.json", "mpi_shm.json", "--json"],
             ["compare", "failed_group.json", "--csv"]):
    rc, out, err = run(*args)
    print(f"{' '.join(args)} -> {rc}")
    if rc != 0:
        failures.append(f"{args}: exit {rc}: {err}")
    elif "--json" in args:
        j = json.loads(out)
        if not any(p["kind"] == "group failed" for p in j["problems"]):
            failures.append(f"{args}: no failed group in JSON problems")
    elif "--csv" not in args and "killed by signal 9" not in out:
        failures.append(f"{args}: failure reason missing from the output")
with tempfile.TemporaryDirectory() as d:
    rc, out, err = run("report", "failed_group.json", "mpi_shm.json", "-o", os.path.join(d, "r.html"))
    if rc != 0 or "killed by signal 9" not in open(os.path.join(d, "r.html")).read():
        failures.append(f"report of failed_group.json: exit {rc}: {err}")

for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
