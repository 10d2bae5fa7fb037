"""Checks one capture's profiler-half files against its NCCL log and the job's own counts:
  check_profiler_workload.py CCTUNE SCHEMA CAPTURE_DIR
CAPTURE_DIR is one workload's folder from capture_workloads.sh run with CCTUNE_PROFILER_SO set:
nccl.rank<R>.log, counts.rank<R>.json and profiler/workload.<host>.<pid>.<tag>.json (one per process).
PASS when
  - every profiler file satisfies the schema and `cctune workload merge` combines them;
  - per (collective, dtype, count, bytes) the profiler counted exactly the calls the COLL-log
    import counted (the profiler's events carry no reduction op, so op is left out of the key);
  - every shape the job counted itself (counts.rank0.json) has the job's call count;
  - where rank 0's TUNING lines name the algorithm and protocol, the profiler saw the same;
  - GPU time (kernel-channel globaltimer) was recorded for the collectives;
  - the groups (calls inside one ncclGroupStart/End) are exactly those the job says it issued
    (counts' extra.groups; none when it says nothing) plus the send/recv group NCCL makes of each
    AlltoAll.
Prints one line per finding; exits 1 on any failure."""
import glob
import json
import os
import subprocess
import sys

try:
    import jsonschema  # CI validates the profiler's files against the schema (tuner_profiler_output)
except ImportError:  # the GPU machine's python3 has none; cctune's own reader still reads each file
    jsonschema = None
    print("note: python3 has no jsonschema module; files are checked by cctune workload merge only")

cctune, schema_path, cap = sys.argv[1:4]
schema = json.load(open(schema_path))
failures = []


def run(*args):
    p = subprocess.run([cctune, "workload", *args], capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        failures.append(f"cctune workload {args[0]}: rc {p.returncode}: {p.stderr.strip()}")
    return p


def load(path):
    w = json.load(open(path))
    if jsonschema:
        jsonschema.validate(w, schema, cls=jsonschema.Draft202012Validator)
    return w


REDUCING = {"allreduce", "reduce", "reducescatter"}
TYPE_SIZE = {"int8": 1, "uint8": 1, "float16": 2, "bfloat16": 2, "int32": 4, "uint32": 4, "float32": 4,
             "int64": 8, "uint64": 8, "float64": 8}


def key(c):
    """A call's shape as both captures can tell it. The profiler half counts calls from NCCL's API
    events (the caller's type, as the COLL log has it); earlier versions counted from task
    events, where NCCL hands data-moving calls (everything that does not reduce) over
    as bytes (int8, count in bytes). Those compare by bytes. NCCL 2.28 issues each AlltoAll as
    the send/recv pairs it is made of."""
    coll = c.get("collective", c["kind"])
    if coll in REDUCING:
        return (coll, c["dtype"], c["count"], c["bytes"])
    per_rank = c["count"] * TYPE_SIZE[c["dtype"]]
    return (coll, "bytes", per_rank, c["bytes"])


def log_alltoall_as_p2p(log, nranks):
    """The COLL log's AlltoAll calls as the profiler sees them: per call and rank, one send and
    one receive of count x type size bytes to and from every rank (the profiler's send/recv
    counts are summed over the ranks captured, which here are all nranks)."""
    for k in [k for k in log if k[0] == "alltoall"]:
        e = log.pop(k)
        for kind in ("send", "recv"):
            p2p = log.setdefault((kind, "bytes", k[2], k[2]), {"calls": 0, "applied": set(), "samples": 0, "clock": set()})
            p2p["calls"] += e["calls"] * nranks * nranks


def by_shape(w):
    out = {}
    for comm in w["communicators"]:
        for c in comm["calls"]:
            e = out.setdefault(key(c), {"calls": 0, "applied": set(), "samples": 0, "clock": set()})
            e["calls"] += c["calls"]
            e["applied"] |= {(a["algo"], a["proto"]) for a in c.get("applied", []) if a["algo"] != "auto"}
            d = c.get("duration_us")
            if d:
                e["samples"] += d["samples"]
                e["clock"].add(d.get("clock", "?"))
    return out


counts0 = json.load(open(os.path.join(cap, "counts.rank0.json")))
world = counts0["world_size"]  # every rank issues the same calls
prof_files = sorted(glob.glob(os.path.join(cap, "profiler", "workload.*.json")))
if len(prof_files) != world:
    failures.append(f"expected {world} profiler files (one per process), found {len(prof_files)}: {prof_files}")
for f in prof_files:
    try:
        w = load(f)
        if w["format"] != "nccl-profiler":
            failures.append(f"{f}: format {w['format']}")
    except Exception as e:  # noqa: BLE001 - report and go on
        failures.append(f"{f}: {e}")
merged = os.path.join(cap, "profiler.merged.json")
log_import = os.path.join(cap, "log.json")
run("merge", *prof_files, "-o", merged)
run("import", *(os.path.join(cap, f"nccl.rank{r}.log") for r in range(world)), "-o", log_import)
if failures:
    print("\n".join("FAIL: " + f for f in failures))
    sys.exit(1)
prof, log = by_shape(load(merged)), by_shape(load(log_import))
log_alltoall_as_p2p(log, world)
# Profiler files count per process; the log import counts per rank: both are per rank.
for k in sorted(set(prof) | set(log)):
    pc, lc = prof.get(k, {}).get("calls", 0), log.get(k, {}).get("calls", 0)
    if pc != lc:
        failures.append(f"{k}: profiler counted {pc} calls, the COLL log {lc}")
    pa, la = prof.get(k, {}).get("applied", set()), log.get(k, {}).get("applied", set())
    if la and pa and not la <= pa:
        failures.append(f"{k}: TUNING says {sorted(la)}, the profiler saw {sorted(pa)}")

torch_to_nccl = {"all_reduce": ("allreduce", 0), "barrier": ("allreduce", 0), "all_gather_into_tensor": ("allgather", 0),
                 "reduce_scatter_tensor": ("reducescatter", 1), "all_to_all_single": ("alltoall", 2),
                 "send": ("send", 0), "recv": ("recv", 0)}
job = {}
for row in counts0["calls"]:
    coll, rule = torch_to_nccl[row["op"]]
    if coll == "alltoall":
        continue  # reaches the profiler as send/recv: checked against the log above
    count = row["input_numel"] if rule == 0 else row["output_numel"] if rule == 1 else row["input_numel"] // world
    k = (coll, row["dtype"], count) if coll in REDUCING else (coll, "bytes", count * TYPE_SIZE[row["dtype"]])
    # Sends and receives are summed over the ranks in a merged file; this job's ranks issue the same.
    job[k] = job.get(k, 0) + row["calls"] * (world if coll in ("send", "recv") else 1)
prof_counts = {}
for (coll, dtype, count, _), e in prof.items():
    prof_counts[(coll, dtype, count)] = prof_counts.get((coll, dtype, count), 0) + e["calls"]
for k, n in sorted(job.items()):
    if prof_counts.get(k, 0) != n:
        failures.append(f"{k}: the job counted {n} calls, the profiler {prof_counts.get(k, 0)}")

def group_key(members):
    return tuple((m.get("collective", m["kind"]), m["dtype"], m["count"]) for m in members)


want_groups = {}
for g in counts0.get("extra", {}).get("groups", []):
    p2p = any(m[0] in ("send", "recv") for m in g["members"])
    want_groups[tuple(tuple(m) for m in g["members"])] = g["calls_per_rank"] * (world if p2p else 1)
# NCCL 2.28 builds each AlltoAll from one group of a send and a receive per peer, and the profiler
# sees that group (the COLL log prints the AlltoAll): one per AlltoAll call and rank.
for comm in load(log_import)["communicators"]:
    for c in comm["calls"]:
        if c.get("collective") == "alltoall":
            members = (("send", c["dtype"], c["count"]), ("recv", c["dtype"], c["count"])) * comm["nranks"]
            want_groups[members] = want_groups.get(members, 0) + c["calls"] * len(comm["ranks"])
got_groups = {}
for comm in load(merged)["communicators"]:
    for g in comm.get("groups", []):
        got_groups[group_key(g["members"])] = got_groups.get(group_key(g["members"]), 0) + g["calls"]
if got_groups != want_groups:
    failures.append(f"groups: the profiler recorded {got_groups}, the job issued {want_groups}")
log_groups = {}
for comm in load(log_import)["communicators"]:
    for g in comm.get("groups", []):
        log_groups[group_key(g["members"])] = log_groups.get(group_key(g["members"]), 0) + g["calls"]
for k, n in sorted(log_groups.items()):  # the log shows the caller's groups: the profiler must have each
    if got_groups.get(k) != n:
        failures.append(f"group {k}: the COLL log shows {n} issues, the profiler {got_groups.get(k, 0)}")
print(f"groups: {len(got_groups)} (profiler) {len(log_groups)} (COLL log): {sorted(got_groups.items())}")

timed = [k for k, e in prof.items() if k[0] not in ("send", "recv") and e["samples"] > 0]
colls = [k for k in prof if k[0] not in ("send", "recv")]
if colls and not timed:
    failures.append("no collective carries a GPU time: kernel-channel events never arrived")
clocks = set().union(*(prof[k]["clock"] for k in timed)) if timed else set()
print(f"shapes: {len(prof)} (profiler) {len(log)} (log); collectives timed: {len(timed)} of {len(colls)}; clocks: {sorted(clocks)}")
print("\n".join("FAIL: " + f for f in failures) if failures else "PASS: profiler workload agrees with the COLL log and the job")
sys.exit(1 if failures else 0)
