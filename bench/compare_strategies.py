#!/usr/bin/env python3
"""Judges the fast search strategy against the exhaustive one, from two results.json files of
the same space on the same machine:

  compare_strategies.py EXHAUSTIVE/results.json HALVING/results.json [--tolerance 0.02]

For every (group, collective, size) the choice of a strategy is its fastest fully measured
candidate (runs[].points; median per-operation time, as `cctune tune` ranks). The halving
choice is then looked up in the exhaustive measurements, so both choices are timed by the same
measurement: ratio = t_exhaustive(halving's choice) / t_exhaustive(exhaustive's choice).
A ratio above 1 + tolerance is "outside"; it is "outside beyond noise" only when the two
exhaustive measurements' confidence intervals (median +/- rel_noise) do not overlap, i.e. the
reference itself could tell the two choices apart. Prints one line per size, the worst ratio,
both sweep durations (whole command; and without the groups' start-up, runs[].startup_s) and
their ratios. Exit 0 when no size is outside beyond noise, 1 otherwise, 2 on unusable input."""
import argparse
import datetime
import json
import sys


def cfg_name(c):
    if c["algo"] == "auto" and c["proto"] == "auto":
        name = "auto"
    else:
        name = c["algo"] + "/" + c["proto"]
    return name + (f"/{c['channels']}" if c.get("channels") else "")


def full_points(results):
    """(group, collective, size) -> {config name: median us} over fully measured points."""
    table = {}
    for run in results["runs"]:
        for p in run["points"]:
            if p["status"] != "ok" or p.get("screen_round") is not None:
                continue
            key = (run["group"], p["collective"], p["size_bytes"])
            median = p["iter_us"]["median"]
            table.setdefault(key, {})[cfg_name(p["config"])] = (median, median * p.get("rel_noise", 0))
    return table


def duration_s(results):
    meta = results["meta"]
    parse = lambda s: datetime.datetime.fromisoformat(s.replace("Z", "+00:00"))
    return (parse(meta["end_time"]) - parse(meta["start_time"])).total_seconds()


def startup_s(results):
    return sum(run.get("startup_s", 0) for run in results["runs"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("exhaustive")
    ap.add_argument("halving")
    ap.add_argument("--tolerance", type=float, default=0.02)
    a = ap.parse_args()
    try:
        exh = json.load(open(a.exhaustive))
        fast = json.load(open(a.halving))
        exh_t, fast_t = full_points(exh), full_points(fast)
    except (OSError, ValueError, KeyError) as e:
        print(f"compare_strategies: cannot read the results: {e}", file=sys.stderr)
        return 2
    if not exh_t:
        print("compare_strategies: the exhaustive results hold no measured point", file=sys.stderr)
        return 2
    worst, misses, noisy, compared = 1.0, 0, 0, 0
    print(f"{'group':<14} {'collective':<14} {'size':>11}  {'exhaustive choice':<22} {'halving choice':<22} {'ratio':>7}")
    for key in sorted(exh_t):
        candidates = exh_t[key]
        best = min(candidates, key=lambda n: candidates[n][0])
        if key not in fast_t:
            print(f"{key[0]:<14} {key[1]:<14} {key[2]:>11}  {best:<22} {'(not measured)':<22} {'-':>7}")
            misses += 1
            continue
        pick = min(fast_t[key], key=lambda n: fast_t[key][n][0])
        if pick not in candidates:
            print(f"{key[0]:<14} {key[1]:<14} {key[2]:>11}  {best:<22} {pick:<22} {'?':>7}  (not in the exhaustive run)")
            misses += 1
            continue
        (t_pick, h_pick), (t_best, h_best) = candidates[pick], candidates[best]
        ratio = t_pick / t_best
        worst = max(worst, ratio)
        compared += 1
        flag = ""
        if ratio > 1 + a.tolerance:
            separated = t_pick - h_pick > t_best + h_best
            flag = "  SLOWER beyond noise" if separated else "  slower within the reference's noise"
            misses += separated
            noisy += not separated
        print(f"{key[0]:<14} {key[1]:<14} {key[2]:>11}  {best:<22} {pick:<22} {ratio:7.3f}{flag}")
    d_exh, d_fast = duration_s(exh), duration_s(fast)
    m_exh, m_fast = d_exh - startup_s(exh), d_fast - startup_s(fast)
    print(f"# sizes compared: {compared}; worst ratio {worst:.3f} (tolerance {1 + a.tolerance:.2f}); "
          f"outside beyond noise: {misses}; outside within the reference's own noise: {noisy}")
    print(f"# durations: exhaustive {d_exh:.1f} s, halving {d_fast:.1f} s, halving/exhaustive = {d_fast / d_exh:.3f}")
    print(f"# without group start-up: exhaustive {m_exh:.1f} s, halving {m_fast:.1f} s, ratio {m_fast / max(m_exh, 1e-9):.3f}")
    return 0 if misses == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
