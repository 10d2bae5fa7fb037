#!/usr/bin/env python3
"""Asserts what collectives_gpu_check.sh needs from one results.json of an NCCL sweep.

check_collectives.py RESULTS --nranks N --collectives a,b [--dtype D] [--op O] [--roots 0,1]
                     [--forced-p2p-skipped] [--min-ok K]
- every run ok with N ranks; no failed point;
- every measured point checked (wrong == 0, not -1);
- every named collective has a measured point (with dtype D and op O when given);
- skipped points only for the reasons NCCL's layouts and the tuner give (in-place
  alltoall/sendrecv; a forced config on a point-to-point collective);
- --roots: the rooted collectives show exactly these roots, each measured;
- --forced-p2p-skipped: forced points of alltoall/sendrecv/gather/scatter are all skipped with
  the point-to-point reason, and forced points of the others ran the forced algo/proto.
Prints one PASS line or the FAIL lines, exit 1 on failure.
"""
import argparse
import json
import sys

P2P = {"alltoall", "sendrecv", "gather", "scatter"}
ROOTED = {"broadcast", "reduce", "gather", "scatter"}
P2P_REASON = "runs on NCCL's point-to-point path; tune it through process-level groups"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("--nranks", type=int, required=True)
    ap.add_argument("--collectives", required=True)
    ap.add_argument("--dtype")
    ap.add_argument("--op")
    ap.add_argument("--roots")
    ap.add_argument("--forced-p2p-skipped", action="store_true")
    a = ap.parse_args()
    fails = []
    res = json.load(open(a.results))
    points = []
    for run in res["runs"]:
        if run.get("status") != "ok":
            fails.append(f"run {run.get('group')}: status {run.get('status')} {run.get('reason', '')}")
        if run.get("nranks") != a.nranks:
            fails.append(f"run {run.get('group')}: {run.get('nranks')} ranks, want {a.nranks}")
        points += run["points"]
    measured = {}
    for p in points:
        what = f"{p['collective']} {p['dtype']} {p['op']} {p['size_bytes']} B {'in' if p['in_place'] else 'out'}" + \
               (f" root {p['root']}" if "root" in p else "")
        forced = (p.get("config") or {}).get("algo", "auto") != "auto"
        if p["status"] == "ok":
            if p.get("wrong") != 0:
                fails.append(f"{what}: wrong={p.get('wrong')}")
            if forced and a.forced_p2p_skipped:
                want = (p["config"]["algo"].lower(), p["config"]["proto"].lower())
                got = ((p.get("chosen") or {}).get("algo", "").lower(), (p.get("chosen") or {}).get("proto", "").lower())
                if p["collective"] in P2P:
                    fails.append(f"{what}: forced {want} measured on a point-to-point collective")
                elif got != want:
                    fails.append(f"{what}: forced {want}, NCCL ran {got}")
            measured.setdefault(p["collective"], []).append(p)
        elif p["status"] == "skipped":
            reason = p.get("reason", "")
            ok = (p["in_place"] and p["collective"] in ("alltoall", "sendrecv") and "in-place" in reason) or \
                 (forced and p["collective"] in P2P and P2P_REASON in reason)
            if not ok:
                fails.append(f"{what}: skipped: {reason}")
        else:
            fails.append(f"{what}: {p['status']}: {p.get('reason', '')}")
    for c in a.collectives.split(","):
        got = [p for p in measured.get(c, []) if (not a.dtype or p["dtype"] == a.dtype) and
               (not a.op or c not in ("allreduce", "reduce", "reducescatter") or p["op"] == a.op)]
        if not got:
            fails.append(f"{c}: no measured point" + (f" of {a.dtype}" if a.dtype else "") + (f" {a.op}" if a.op else ""))
        if a.roots and c in ROOTED:
            want = sorted(int(r) for r in a.roots.split(","))
            roots = sorted({p.get("root", -1) for p in got})
            if roots != want:
                fails.append(f"{c}: measured roots {roots}, want {want}")
    for f in fails[:40]:
        print("FAIL:", f)
    if fails:
        return 1
    n = sum(len(v) for v in measured.values())
    skipped = sum(1 for p in points if p["status"] == "skipped")
    print(f"PASS: {a.results}: {n} points measured with 0 wrong ({skipped} skipped with their reason) over "
          f"{len(measured)} collectives, {a.nranks} ranks" + (f", {a.dtype}" if a.dtype else "") + (f", op {a.op}" if a.op else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
