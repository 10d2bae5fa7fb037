#!/usr/bin/env python3
"""check_workload_metrics.py DIR: for each <job>.{log,fr}.prom beside its workload JSON, calls
per step match the JSON's calls / steps shape for shape; where the capture timed calls (the
flight recorder), per-step times are positive and the shares sum to 1."""
import glob
import json
import os
import re
import sys

line_re = re.compile(r'^(\w+)(?:\{(.*)\})? (\S+)$')
label_re = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')


def series(path):
    out = []
    for line in open(path, encoding="utf-8"):
        if line.startswith("#"):
            continue
        m = line_re.match(line.rstrip("\n"))
        assert m, f"{path}: unexpected line {line!r}"
        out.append((m.group(1), dict(label_re.findall(m.group(2) or "")), float(m.group(3))))
    return out


checked = 0
for prom in sorted(glob.glob(os.path.join(sys.argv[1], "*.prom"))):
    w = json.load(open(prom[:-5] + ".json"))
    s = series(prom)
    per_step = [(l, v) for n, l, v in s if n == "cctune_workload_calls_per_step"]
    want = sum(len(c["calls"]) for c in w["communicators"])
    assert len(per_step) == want, f"{prom}: {len(per_step)} calls-per-step series for {want} shapes"
    for c in w["communicators"]:
        for call in c["calls"]:
            hits = [v for l, v in per_step if l["communicator"] == c["id"] and l["bytes"] == str(call["bytes"])
                    and l["count"] == str(call["count"]) and l["dtype"] == call["dtype"]
                    and l["collective"] == call.get("collective", call["kind"])]
            assert any(abs(v - call["calls"] / w["steps"]) < 1e-9 for v in hits), f"{prom}: {c['id']} {call} not found"
    shares = [v for n, l, v in s if n == "cctune_workload_time_share_ratio"]
    timed = any(call.get("duration_us") for c in w["communicators"] for call in c["calls"])
    if timed:
        assert shares and abs(sum(shares) - 1) < 1e-9, f"{prom}: shares sum to {sum(shares)}"
        assert all(v > 0 for n, l, v in s if n == "cctune_workload_time_seconds_per_step")
    checked += 1
    print(f"{os.path.basename(prom)}: {len(per_step)} shapes, {len(shares)} timed groups")
assert checked >= 6, f"only {checked} metrics files"
print("check_workload_metrics: OK")
