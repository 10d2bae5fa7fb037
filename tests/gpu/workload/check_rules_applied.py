#!/usr/bin/env python3
"""Did NCCL apply the profile's rules in a real job? Compares a profile's rules with what NCCL's
TUNING lines say it applied to the job's calls (a workload imported from the job's NCCL log):
every call shape of a rule's (collective, nranks, nnodes) whose bytes fall in the rule's range
must have been run with the rule's algorithm and protocol, and at least one must exist.

    check_rules_applied.py PROFILE_JSON WORKLOAD_JSON

Exit 0 with one PASS line per matched shape; 1 with the first mismatch or when nothing matched."""
import json
import sys


def main():
    profile = json.load(open(sys.argv[1]))
    workload = json.load(open(sys.argv[2]))
    matched, bad = 0, []
    for comm in workload["communicators"]:
        for call in comm["calls"]:
            if call.get("kind", "collective") != "collective":
                continue
            for rule in profile["rules"]:
                if (rule["collective"], rule["nranks"], rule["nnodes"]) != (call["collective"], comm["nranks"], comm.get("nnodes")):
                    continue
                if not rule["min_bytes"] <= call["bytes"] <= rule["max_bytes"]:
                    continue
                applied = call.get("applied", [])
                if not applied:
                    continue  # rank 0 of the communicator prints TUNING lines; this shape had none in the log
                want = (rule["algo"], rule["proto"])
                got = sorted({(a.get("algo"), a.get("proto")) for a in applied})
                line = f"{call['collective']} {call['bytes']} B on {comm['nranks']}x{comm.get('nnodes')}: rule {want}, NCCL applied {got}"
                if got == [want]:
                    matched += 1
                    print("PASS:", line)
                else:
                    bad.append(line)
    if bad:
        print("FAIL:", "; ".join(bad))
        return 1
    if matched == 0:
        print("FAIL: no call of the job falls under a rule of the profile (nothing to check)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
