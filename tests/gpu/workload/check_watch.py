"""Checks the production watch's output of one run of capture_job.py (issue 35):
  check_watch.py CCTUNE PROFILE CAPTURE_DIR NRANKS EXPECT
CAPTURE_DIR is one workload's folder from capture_workloads.sh run with CCTUNE_PROFILER_SO and
CCTUNE_JOB_ENV_FILE (tune's nccl.env, so CCTUNE_PROFILE=PROFILE): nccl.rank<R>.log and
profiler/workload.<host>.<pid>.json (one per process). PROFILE must hold no rule, so every
shape is judged against NCCL's defaults as the sweep measured them (measured_baseline).
Prints, per process and shape of the NRANKS-rank communicators, the live busbw next to the
baseline, then each finding. EXPECT:
  none       no finding in any file and no "cctune watch:" line in any log
  shortfall  at least one allreduce of 1 MiB or more reported; every finding is against the
             baseline ("reference": "baseline", profile_busbw_GBps the baseline's at
             profile_bytes), more than 15 % short, and has its warning in its rank's NCCL log
             naming NCCL's defaults; every warning in the logs has its finding
In both: cctune's own reader takes the files (`cctune workload merge`), and no log says the
profile was not used. Exits 1 on any failure."""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

cctune, profile_path, cap, nranks, expect = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
assert expect in ("none", "shortfall"), expect
failures = []
BUS_FACTOR = {"allreduce": 2.0 * (nranks - 1) / nranks, "allgather": (nranks - 1) / nranks,
              "reducescatter": (nranks - 1) / nranks, "alltoall": (nranks - 1) / nranks}

profile = json.load(open(profile_path))
baseline = {(b["collective"], b["size_bytes"]): b["busbw_GBps"] for b in profile.get("measured_baseline", [])
            if b["nranks"] == nranks and b["nnodes"] == 1}
if profile.get("rules"):
    failures.append(f"{profile_path} holds {len(profile['rules'])} rule(s); this check needs a profile without rules")

files = sorted(glob.glob(os.path.join(cap, "profiler", "workload.*.json")))
if not files:
    failures.append(f"no profiler file in {cap}/profiler")
logs = {r: open(os.path.join(cap, f"nccl.rank{r}.log"), errors="replace").read() for r in range(nranks)
        if os.path.exists(os.path.join(cap, f"nccl.rank{r}.log"))}
for r, text in logs.items():
    for line in text.splitlines():
        if "not using the profile" in line:
            failures.append(f"rank {r}'s log: {line.strip()}")

with tempfile.TemporaryDirectory() as tmp:
    p = subprocess.run([cctune, "workload", "merge", *files, "-o", os.path.join(tmp, "merged.json")],
                       capture_output=True, text=True, timeout=120)
    if files and p.returncode != 0:
        failures.append(f"cctune workload merge of the profiler files: rc {p.returncode}: {p.stderr.strip()}")


def median_us(histogram):
    """The watch's figure: the median call's bucket, at the bucket's geometric middle."""
    total = sum(n for _, n in histogram)
    seen = 0
    for b, n in sorted(histogram):
        seen += n
        if 2 * seen >= total:
            return 0.5 if b == 0 else 2 ** (b / 4) * 2 ** -0.125
    return None


findings = []
# "live": the watch's figure (the median call); "best": the fastest call. Where best is near the
# baseline and live is not, the ranks' skew (an early rank's kernel waits for the others inside
# its GPU time) rather than the link is what the watch sees.
print(f"{'rank':>4} {'collective':<13} {'bytes':>10} {'calls':>5} {'live GB/s':>10} {'best GB/s':>10} {'baseline GB/s':>13}")
for path in files:
    w = json.load(open(path))
    for c in w["communicators"]:
        if c["nranks"] != nranks:
            continue
        for s in c["calls"]:
            coll, size = s.get("collective", s["kind"]), s["bytes"]
            hist = s.get("duration_us", {}).get("histogram")
            if not hist or coll not in BUS_FACTOR:
                continue
            live = size / (median_us(hist) * 1e3) * BUS_FACTOR[coll]
            best = size / (s["duration_us"]["min"] * 1e3) * BUS_FACTOR[coll] if s["duration_us"].get("min") else 0
            ref = baseline.get((coll, size))
            print(f"{c['ranks'][0]:>4} {coll:<13} {size:>10} {s['calls']:>5} {live:>10.2f} {best:>10.2f} "
                  f"{f'{ref:.2f}' if ref else '-':>13}")
        findings += [(c["id"], f) for f in c.get("watch", [])]

for comm, f in findings:
    print(f"finding: communicator {comm} rank {f['rank']}: {f['collective']} of {f['bytes']} bytes at {f['live_busbw_GBps']:.2f} GB/s, "
          f"{100 * f['shortfall']:.0f}% below the {f['profile_busbw_GBps']:.2f} GB/s measured at {f['profile_bytes']} bytes "
          f"(reference {f.get('reference')})")
warnings = [(r, line.strip()) for r, text in logs.items() for line in text.splitlines() if "cctune watch:" in line]
for r, line in warnings:
    print(f"rank {r}'s log: {line}")

if expect == "none":
    if findings or warnings:
        failures.append(f"{len(findings)} finding(s) and {len(warnings)} warning(s) in a run expected healthy (listed above)")
        flagged = sorted({f["rank"] for _, f in findings})
        if flagged and len(flagged) < nranks:
            print(f"note: findings on ranks {flagged} only, of {nranks}: the pattern of ranks' skew (an early rank's calls wait "
                  "for the others inside their GPU time), not of a slow link, which slows every rank")
else:
    if not any(f["collective"] == "allreduce" and f["bytes"] >= 1 << 20 for _, f in findings):
        failures.append("no allreduce of 1 MiB or more was reported")
    for comm, f in findings:
        where = f"finding {f['collective']} {f['bytes']} on rank {f['rank']}"
        if f.get("reference") != "baseline":
            failures.append(f"{where}: reference {f.get('reference')!r}, expected 'baseline' (the profile has no rules)")
        if baseline.get((f["collective"], f["profile_bytes"])) != f["profile_busbw_GBps"]:
            failures.append(f"{where}: profile_busbw_GBps {f['profile_busbw_GBps']} is not the baseline's at {f['profile_bytes']} bytes")
        if not f["shortfall"] > 0.15:
            failures.append(f"{where}: shortfall {f['shortfall']} is not beyond 15 %")
        want = re.compile(re.escape(f"cctune watch: communicator {comm} rank {f['rank']}: {f['collective']} of {f['bytes']} bytes ")
                          + r".*measured with NCCL's defaults at " + re.escape(f"{f['profile_bytes']} bytes"))
        if not want.search(logs.get(f["rank"], "")):
            failures.append(f"{where}: no matching 'cctune watch:' warning in nccl.rank{f['rank']}.log")
    reported = {(comm, f["rank"], f["collective"], f["bytes"]) for comm, f in findings}
    for r, line in warnings:
        m = re.search(r"cctune watch: communicator (\S+) rank (\d+): (\S+) of (\d+) bytes", line)
        if not m or (m[1], int(m[2]), m[3], int(m[4])) not in reported:
            failures.append(f"rank {r}'s warning has no finding in the workload files: {line}")

for f in failures:
    print("FAIL:", f)
if not failures:
    print(f"PASS: {cap}: {len(findings)} finding(s), {len(warnings)} warning(s), as expected ({expect})")
sys.exit(1 if failures else 0)
