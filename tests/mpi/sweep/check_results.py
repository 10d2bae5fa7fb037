#!/usr/bin/env python3
"""Checks a cctune results.json: schema, nccl-tests busbw formula, data check, contents.

usage: check_results.py RESULTS SCHEMA [--nranks N] [--collectives a,b] [--status S]
       [--check-wrong] [--min-points N] [--roots R]

--roots a,b: every rooted collective (broadcast, reduce, gather, scatter) was measured with
exactly these roots, each with the same sizes and placements.
"""
import argparse
import json
import sys

import jsonschema

DTYPE_SIZE = {"int8": 1, "uint8": 1, "int32": 4, "uint32": 4, "int64": 8, "uint64": 8,
              "float16": 2, "bfloat16": 2, "float32": 4, "float64": 8, "float8e4m3": 1, "float8e5m2": 1}
SPLIT = {"allgather", "reducescatter", "alltoall", "gather", "scatter"}
ROOTED = {"broadcast", "reduce", "gather", "scatter"}


def bus_factor(coll, n):
    if coll == "allreduce":
        return 2.0 * (n - 1) / n
    if coll in SPLIT:
        return (n - 1) / n
    return 1.0


def fail(msg):
    print(f"check_results: FAIL: {msg}")
    sys.exit(1)


RANK_COLUMNS = ("batch_us", "iter_median_us", "wait_median_us", "last_pct")


def check_per_rank(run, p, n):
    """cctune.results/2: per-rank columns of length nranks; every operation had a last rank."""
    ranks = p.get("ranks")
    if ranks is None:
        fail(f"{p['collective']} {p['size_bytes']} B: ok point without per-rank timings")
    for key in RANK_COLUMNS:
        if len(ranks[key]) != n:
            fail(f"{p['collective']} {p['size_bytes']} B: ranks.{key} has {len(ranks[key])} entries for {n} ranks")
    total = sum(ranks["last_pct"])
    if abs(total - 100) > 0.01 * n:
        fail(f"{p['collective']} {p['size_bytes']} B: last_pct sums to {total}, not 100")


def check_places(run, n):
    places = run.get("places")
    if places is None or len(places) != n:
        fail(f"run {run['group']}: places has {len(places or [])} entries for {n} ranks")
    for r, pl in enumerate(places):
        if not pl["host"]:
            fail(f"run {run['group']}: rank {r} has no host")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("schema")
    ap.add_argument("--nranks", type=int)
    ap.add_argument("--collectives")
    ap.add_argument("--status")
    ap.add_argument("--check-wrong", action="store_true")
    ap.add_argument("--min-points", type=int, default=1)
    ap.add_argument("--roots")
    a = ap.parse_args()

    doc = json.load(open(a.results))
    jsonschema.validate(doc, json.load(open(a.schema)))
    if a.status and doc["meta"]["status"] != a.status:
        fail(f"meta.status is {doc['meta']['status']}, expected {a.status}")
    ok_points = 0
    seen = set()
    rows = {}  # (collective, root) -> sizes of its ok points
    for run in doc["runs"]:
        n = run["nranks"]
        if a.nranks and n != a.nranks:
            fail(f"run has nranks {n}, expected {a.nranks}")
        per_rank = doc["schema"] != "cctune.results/1"
        if per_rank:
            check_places(run, n)
        for p in run["points"]:
            seen.add(p["collective"])
            if (p["collective"] in ROOTED) != ("root" in p):
                fail(f"{p['collective']}: 'root' must be present exactly for rooted collectives")
            if "root" in p and not 0 <= p["root"] < n:
                fail(f"{p['collective']}: root {p['root']} is not a rank of {n}")
            if p["status"] != "ok":
                continue
            rows.setdefault((p["collective"], p.get("root")), set()).add((p["size_bytes"], p["in_place"]))
            ok_points += 1
            if per_rank:
                check_per_rank(run, p, n)
            w = DTYPE_SIZE[p["dtype"]]
            bw_bytes = p["count"] * w * (n if p["collective"] in SPLIT else 1)
            algbw = bw_bytes / 1e9 / (p["batch_us"] * 1e-6)
            busbw = algbw * bus_factor(p["collective"], n)
            for key, want in (("algbw_GBps", algbw), ("busbw_GBps", busbw)):
                got = p[key]
                if abs(got - want) > 1e-9 * max(1.0, abs(want)):
                    fail(f"{p['collective']} {p['size_bytes']} B: {key} {got} != formula {want}")
            expected_size = max(p["count"] * (n if p["collective"] in SPLIT else 1) * w, 0)
            if p["size_bytes"] != expected_size:
                fail(f"{p['collective']}: size_bytes {p['size_bytes']} != count*type(*n) {expected_size}")
            if a.check_wrong and p["wrong"] != 0:
                fail(f"{p['collective']} {p['size_bytes']} B in_place={p['in_place']}: {p['wrong']} wrong elements")
            if p["iter_us"]["min"] > p["iter_us"]["median"] or p["iter_us"]["median"] > p["iter_us"]["max"]:
                fail("iteration summary out of order")
    if a.collectives:
        want = set(a.collectives.split(","))
        if not want <= seen:
            fail(f"collectives {sorted(want - seen)} missing (have {sorted(seen)})")
    if a.roots is not None:
        for coll in sorted(ROOTED & seen):
            roots = sorted(r for c, r in rows if c == coll)
            if roots != sorted(int(r) for r in a.roots.split(",")):
                fail(f"{coll}: measured with roots {roots}, expected {a.roots}")
            if len({frozenset(rows[(coll, r)]) for r in roots}) != 1:
                fail(f"{coll}: the roots' row sets differ")
    if ok_points < a.min_points:
        fail(f"only {ok_points} measured points")
    print(f"check_results: OK: {ok_points} points, collectives {sorted(seen)}")


if __name__ == "__main__":
    main()
