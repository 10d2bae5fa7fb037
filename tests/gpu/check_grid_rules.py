#!/usr/bin/env python3
"""Issue #35's grid must-show: every rule the sweep's profile wrote reads "faster" in verify.

  tests/gpu/check_grid_rules.py PROFILE_JSON VERIFY_JSON

Prints the profile's group env, each rule, and each verify row a rule covers with its
speedup, interval and verdict; then the rows no rule covers (the group's env alone). Exit 1
when a rule's row reads "same" or "slower", or a rule has no row at all (verify did not
measure it); 0 otherwise, a profile without rules included (nothing to read faster).
"""
import json
import sys


def main() -> int:
    profile = json.load(open(sys.argv[1]))
    verify = json.load(open(sys.argv[2]))
    rules = profile.get("rules", [])
    print(f"profile env: {profile.get('env')}; {len(rules)} rule(s)")
    rows = verify.get("rows", [])
    bad = 0
    for r in rules:
        covered = [row for row in rows if row["collective"] == r["collective"]
                   and r["min_bytes"] <= row["size_bytes"] <= r["max_bytes"]]
        print(f"rule {r['collective']} {r['min_bytes']}..{r['max_bytes']} B {r.get('algo')}/{r.get('proto')}"
              f" channels {r.get('channels', 0)}: {len(covered)} verify row(s)")
        if not covered:
            print("  FAIL: verify measured no size of this rule")
            bad += 1
        for row in covered:
            ok = row["verdict"] == "faster"
            bad += 0 if ok else 1
            print(f"  {'ok  ' if ok else 'FAIL'} {row['size_bytes']:>12} B  speedup {row['speedup']:.3f}"
                  f" [{row['ci_low']:.3f}, {row['ci_high']:.3f}] ({row['ci_confidence'] * 100:.1f} %) {row['verdict']}")
    others = [row for row in rows if row.get("rule", "-") == "-"]
    counts = {v: sum(1 for row in others if row["verdict"] == v) for v in ("faster", "same", "slower")}
    print(f"rows no rule covers (the group's env only): {len(others)}: {counts}")
    print(f"verify: geometric mean {verify.get('geomean_speedup', 0):.3f}; faster {verify.get('faster')},"
          f" same {verify.get('same')}, slower {verify.get('slower')}")
    if bad:
        print(f"FAIL: {bad} rule row(s) not faster in verify")
        return 1
    print("PASS: every written rule reads faster in verify" if rules else "PASS: no rule written (NCCL's defaults kept)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
