#!/usr/bin/env python3
"""The tables of bench/nccl_side_by_side.sh: per variant (collective, implementation,
placement) and size, the medians of each tool's runs, their difference with a 95 % bootstrap
interval, and a verdict (within max(1 %, 0.3 us) of the reference).

    side_by_side_table.py [--ref-name NAME] [--name NAME] OUTDIR RUNS COLL:IMPL:PLACE...

--ref-name names the reference in the printed tables (default 'reference'; 'nccl-tests' for
bench/nccl_tests_side_by_side.sh), --name the verdict line's script (default nccl_side_by_side).
Reads OUTDIR/ref.COLL.IMPL.PLACE.RUN.csv and OUTDIR/cctune.RUN/results.json; writes the full
table to OUTDIR/summary.txt and the raw numbers to OUTDIR/per_run.txt; prints a compact ratio
table (cctune / reference; '!' marks a size outside the tolerance). Exit 1 when any fails."""
import argparse
import csv
import json
import random
import statistics
import sys

from bench_stats import ci95, within_tolerance


def load(out, runs, variants):
    ref, cct = {}, {}
    for run in range(1, runs + 1):
        for v in variants:
            coll, impl, place = v.split(":")
            with open(f"{out}/ref.{coll}.{impl}.{place}.{run}.csv") as f:
                for row in csv.DictReader(f):
                    ref.setdefault((v, int(row["size_bytes"])), []).append(float(row["time_us"]))
        with open(f"{out}/cctune.{run}/results.json") as f:
            doc = json.load(f)
        for r in doc["runs"]:
            for p in r["points"]:
                if r["backend"] != "nccl" or p["status"] != "ok":
                    continue
                v = f"{p['collective']}:{p.get('impl', '-')}:{'in' if p['in_place'] else 'out'}"
                cct.setdefault((v, p["size_bytes"]), []).append(p["batch_us"])
    return ref, cct



def main():
    p = argparse.ArgumentParser()
    p.add_argument("--ref-name", default="reference")
    p.add_argument("--name", default="nccl_side_by_side")
    p.add_argument("out")
    p.add_argument("runs", type=int)
    p.add_argument("variants", nargs="+")
    a = p.parse_args()
    out, runs, variants, ref_name, name = a.out, a.runs, a.variants, a.ref_name, a.name
    ref, cct = load(out, runs, variants)
    rng = random.Random(1)
    order = {v: i for i, v in enumerate(variants)}
    keys = sorted(set(ref) & set(cct), key=lambda k: (order.get(k[0], len(order)), k[1]))
    full = [f"{'variant':<26}{'size_B':>11}{'ref_us':>10}{'cctune_us':>11}{'diff_us':>9}{'ratio':>7}{'ci95_us':>17}  verdict"
            f"   (medians of {runs} interleaved runs)"]
    ratio, bad, noise = {}, [], []
    for key in keys:
        r, c = statistics.median(ref[key]), statistics.median(cct[key])
        ok = within_tolerance(r, c)
        lo, hi = ci95(ref[key], cct[key], rng)
        ratio[key] = (c / r, ok)
        if not ok:
            bad.append(f"{key[0]} {key[1]}")
            if lo <= 0 <= hi:
                noise.append(f"{key[0]} {key[1]}")
        verdict = "PASS" if ok else ("FAIL (ci95 holds 0)" if lo <= 0 <= hi else "FAIL")
        full.append(f"{key[0]:<26}{key[1]:>11}{r:>10.2f}{c:>11.2f}{c - r:>+9.2f}{c / r:>7.3f}  [{lo:+6.2f},{hi:+6.2f}]  {verdict}")
    missing = sorted(set(ref) ^ set(cct))
    if missing:
        bad.append(f"measured by one side only: {missing}")
    with open(f"{out}/summary.txt", "w") as f:
        f.write("\n".join(full) + "\n")
    with open(f"{out}/per_run.txt", "w") as f:
        for key in sorted(set(ref) | set(cct)):
            f.write(f"{key}: {ref_name} {ref.get(key)} cctune batch_us {cct.get(key)}\n")

    sizes = sorted({k[1] for k in keys})
    print(f"cctune batch_us / {ref_name} time_us, medians of {runs} runs ('!': outside max(1 %, 0.3 us));"
          f" full table: {out}/summary.txt")
    print(f"{'variant':<26}" + "".join(f"{s:>11}" for s in sizes))
    for v in variants:
        cells = []
        for s in sizes:
            got = ratio.get((v, s))
            cells.append(f"{got[0]:>10.3f}{' ' if got[1] else '!'}" if got else f"{'-':>10} ")
        print(f"{v:<26}" + "".join(cells))
    total = len(keys)
    if bad or total == 0:
        print(f"{name}: FAIL ({len(bad)} of {total} outside max(1 %, 0.3 us): {'; '.join(bad)})")
        if noise:
            print(f"  of those, {len(noise)} with a ci95 that holds 0 (the runs cannot tell the tools apart there):"
                  f" {'; '.join(noise)}")
        return 1
    print(f"{name}: PASS ({total} of {total} sizes within max(1 %, 0.3 us) of the {ref_name})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
