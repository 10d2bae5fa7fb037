#!/usr/bin/env python3
"""check_sweep_metrics.py RESULTS PROM: the metrics file holds exactly one busbw and one time
series per ok point of results.json, with its figures in base units."""
import json
import re
import sys

results, prom = sys.argv[1:3]
r = json.load(open(results))
series = {}
line_re = re.compile(r'^(\w+)\{(.*)\} (\S+)$')
label_re = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')
for line in open(prom, encoding="utf-8"):
    if line.startswith("#"):
        continue
    m = line_re.match(line.rstrip("\n"))
    assert m, f"unexpected line: {line!r}"
    key = (m.group(1), tuple(sorted(label_re.findall(m.group(2)))))
    assert key not in series, f"series twice: {key}"
    series[key] = float(m.group(3))

ok = 0
for run in r["runs"]:
    for p in run["points"]:
        if p["status"] != "ok":
            continue
        ok += 1
        want = {("group", run["group"]), ("collective", p["collective"]), ("bytes", str(p["size_bytes"])), ("dtype", p["dtype"]),
                ("placement", "in" if p.get("in_place") else "out")}
        for name, value in (("cctune_busbw_bytes_per_second", p["busbw_GBps"] * 1e9), ("cctune_collective_time_seconds", p["batch_us"] / 1e6)):
            hits = [v for (n, labels), v in series.items() if n == name and want <= set(labels)]
            assert len(hits) == 1, f"{name} {want}: {len(hits)} series"
            assert abs(hits[0] - value) <= 1e-9 * max(1.0, abs(value)), f"{name} {want}: {hits[0]} != {value}"
busbw = sum(1 for (n, _) in series if n == "cctune_busbw_bytes_per_second")
assert ok > 0 and busbw == ok, f"{busbw} busbw series for {ok} ok points"
print(f"check_sweep_metrics: {ok} points, {len(series)} series: OK")
