#!/usr/bin/env python3
"""Asserts what collectives_gpu_check.sh needs from one results.json of an NCCL sweep.

check_collectives.py RESULTS --nranks N --collectives a,b [--dtype D] [--op O] [--roots 0,1]
                     [--forced-p2p-skipped] [--skipped-because TEXT] [--impls native,grouped]
- every run ok with N ranks; no failed point;
- every measured point checked (wrong == 0, not -1), except fp8 points whose result has no
  exact value (core/data_check_plan.hpp's rule, mirrored in fp8_unchecked): those must be
  recorded as not checked (wrong == -1), never as 0 wrong;
- --skipped-because TEXT: every point skipped, each with TEXT in its reason (fp8 on a GPU
  older than sm_90);
- every named collective has a measured point (with dtype D and op O when given);
- skipped points only for the reasons NCCL's layouts and the tuner give (in-place
  alltoall/sendrecv; a forced config on a point-to-point collective);
- --roots: the rooted collectives show exactly these roots, each measured;
- --forced-p2p-skipped: forced points of alltoall/sendrecv/gather/scatter are all skipped with
  the point-to-point reason, and forced points of the others ran the forced algo/proto.
- --impls: every point of alltoall/gather/scatter records "impl", one of these, and each of
  them has measured points of each such collective named (a native variant skipped because
  the loaded NCCL lacks the call counts as seen, with a note); no other collective has "impl".
Prints one PASS line or the FAIL lines, exit 1 on failure.
"""
import argparse
import json
import sys

P2P = {"alltoall", "sendrecv", "gather", "scatter"}
TWO_IMPLS = {"alltoall", "gather", "scatter"}
NATIVE_ABSENT = "is absent from the loaded NCCL"
ROOTED = {"broadcast", "reduce", "gather", "scatter"}
P2P_REASON = "runs on NCCL's point-to-point path; tune it through process-level groups"
REDUCTIONS = {"allreduce", "reduce", "reducescatter"}
FP8_EXACT_INTEGERS = {"float8e4m3": 16, "float8e5m2": 8}


def fp8_unchecked(p, nranks):
    """True where cctune must not claim an exact check (core/data_check_plan.cpp's rule)."""
    limit = FP8_EXACT_INTEGERS.get(p["dtype"])
    if limit is None or p["collective"] not in REDUCTIONS or p["op"] in ("max", "min"):
        return False
    if p["op"] == "prod" or limit // nranks < 1:
        return True
    return p["op"] == "avg" and nranks & (nranks - 1) != 0


def impl_fails(points, collectives, impls):
    """The implementation field: present exactly on alltoall/gather/scatter, each asked one seen."""
    fails, seen = [], set()
    for p in points:
        impl = p.get("impl")
        if p["collective"] not in TWO_IMPLS:
            if impl is not None:
                fails.append(f"{p['collective']}: impl {impl!r} on a collective with one implementation")
            continue
        if impl not in impls:
            fails.append(f"{p['collective']} {p['size_bytes']} B: impl {impl!r}, want one of {impls}")
        elif p["status"] == "ok" or NATIVE_ABSENT in p.get("reason", ""):
            seen.add((p["collective"], impl))
            if p["status"] != "ok":
                print(f"note: {p['collective']} native skipped: {p['reason']}")
    for c in collectives:
        for impl in impls:
            if c in TWO_IMPLS and (c, impl) not in seen:
                fails.append(f"{c}: no measured point with impl {impl!r}")
    return fails


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("--nranks", type=int, required=True)
    ap.add_argument("--collectives", required=True)
    ap.add_argument("--dtype")
    ap.add_argument("--op")
    ap.add_argument("--roots")
    ap.add_argument("--forced-p2p-skipped", action="store_true")
    ap.add_argument("--skipped-because")
    ap.add_argument("--impls")
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
    unchecked = 0
    if a.skipped_because:
        bad = [p for p in points if p["status"] != "skipped" or a.skipped_because not in p.get("reason", "")]
        for p in bad[:10]:
            fails.append(f"{p['collective']} {p['dtype']}: {p['status']} {p.get('reason', '')!r}, "
                         f"want skipped because {a.skipped_because!r}")
        if not points:
            fails.append("no points at all")
        for f in fails:
            print("FAIL:", f)
        if not fails:
            print(f"PASS: {a.results}: all {len(points)} points skipped because {a.skipped_because!r}")
        return 1 if fails else 0
    for p in points:
        what = f"{p['collective']} {p['dtype']} {p['op']} {p['size_bytes']} B {'in' if p['in_place'] else 'out'}" + \
               (f" root {p['root']}" if "root" in p else "")
        forced = (p.get("config") or {}).get("algo", "auto") != "auto"
        if p["status"] == "ok":
            if fp8_unchecked(p, a.nranks):
                unchecked += 1
                if p.get("wrong") != -1:
                    fails.append(f"{what}: wrong={p.get('wrong')}, want -1 (fp8 without an exact result: not checked)")
            elif p.get("wrong") != 0:
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
                 (forced and p["collective"] in P2P and P2P_REASON in reason) or \
                 (p.get("impl") == "native" and NATIVE_ABSENT in reason)
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
    if a.impls:
        fails += impl_fails(points, a.collectives.split(","), a.impls.split(","))
    for f in fails[:40]:
        print("FAIL:", f)
    if fails:
        return 1
    n = sum(len(v) for v in measured.values())
    skipped = sum(1 for p in points if p["status"] == "skipped")
    checked = f"{n} points measured with 0 wrong" if not unchecked else \
        f"{n} points measured: {n - unchecked} with 0 wrong, {unchecked} fp8 without an exact result recorded as not checked"
    print(f"PASS: {a.results}: {checked} ({skipped} skipped with their reason) over "
          f"{len(measured)} collectives, {a.nranks} ranks" + (f", {a.dtype}" if a.dtype else "") + (f", op {a.op}" if a.op else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
