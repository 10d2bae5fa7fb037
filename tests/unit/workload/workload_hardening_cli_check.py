"""`cctune workload import` / `merge` against the reliability review's reproductions (N4, N6,
N8-N12) and issue 34's flight-recorder and duplicate-file classes:
  workload_hardening_cli_check.py CCTUNE SOURCE_DIR SCRATCH
Every refusal is one line naming the file, exit 2, and quick; nothing printed carries a raw
control character. Each check failed on 8646a77."""
import json
import os
import pickle
import shutil
import subprocess
import sys
import time

cctune, src, scratch = sys.argv[1:4]
caps = os.path.join(os.path.abspath(src), "tests/fixtures/workload/captures-h100-torch2.11-nccl2.28.9")
shutil.rmtree(scratch, ignore_errors=True)
os.makedirs(scratch)
failures = []


def path(name):
    return os.path.join(scratch, name)


def run(*args, rc=0, timeout=60):
    start = time.monotonic()
    try:
        p = subprocess.run([cctune, "workload", *args], capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        failures.append(f"{args}: still running after {timeout} s")
        return None, timeout
    took = time.monotonic() - start
    if p.returncode != rc:
        failures.append(f"{args}: rc {p.returncode}, wanted {rc}: {p.stderr.decode(errors='replace').strip()}")
    for stream in (p.stdout, p.stderr):
        if any(b in stream for b in (b"\x1b", b"\x07", b"\x00", b"\r")):
            failures.append(f"{args}: printed a raw control character: {stream!r}")
    if rc == 2 and p.stderr.count(b"\n") != 1:
        failures.append(f"{args}: the refusal is not one line: {p.stderr!r}")
    return p, took


def write(name, doc):
    with open(path(name), "w") as f:
        json.dump(doc, f)
    return path(name)


def workload(comms, steps=4):
    return {"schema": "cctune.workload/1", "format": "nccl-log", "sources": ["x"], "steps": steps, "communicators": comms}


def shape(count, calls=8, **kw):
    s = {"kind": "collective", "collective": "allreduce", "dtype": "float32", "op": "sum", "count": count, "bytes": 4 * count, "calls": calls}
    s.update(kw)
    return s


def comm(cid, rank, calls, nranks=2):
    return {"id": cid, "nranks": nranks, "nnodes": 1, "ranks": [rank], "calls": calls}


# N12: a FIFO is refused before anything could block (the sniffer opened it for a blocking read).
os.mkfifo(path("fifo"))
p, took = run("import", path("fifo"), "-o", path("w.json"), rc=2, timeout=20)
if p and (took > 5 or b"not a regular file" not in p.stderr):
    failures.append(f"FIFO: {took:.1f} s, {p.stderr!r}")

# Issue 34: the same file twice, by its name twice or through a link, is refused, not summed.
log0 = os.path.join(caps, "ddp/nccl.rank0.log")
os.symlink(log0, path("link.log"))
for second in (log0, path("link.log")):
    p, _ = run("import", log0, second, "-o", path("w.json"), rc=2)
    if p and b"already given" not in p.stderr:
        failures.append(f"same file twice: {p.stderr!r}")

# N8: a capture path that is not UTF-8 imports (it was type_error.316).
latin = os.path.join(scratch.encode(), b"nccl.\xff.log")
shutil.copy(log0, latin)
p, _ = run("import", latin.decode(errors="surrogateescape"), "-o", path("latin.json"))
if p and p.returncode == 0:
    json.load(open(path("latin.json")))

# N9: an id with terminal escapes is refused on read, named safely.
esc = "0x1\u001b]0;PWNED\u0007\u001b[2J\nFAKE: all good"
run("merge", write("esc.json", workload([comm(esc, 0, [shape(1024)])])), "-o", path("m.json"), rc=2)

# N10, N11: narrowing, count vs bytes, negative and infinite durations, duplicate shapes.
bad = {
    "nranks 2^32+2": workload([comm("0x2", 0, [shape(1024)], nranks=4294967298)]),
    "count vs bytes": workload([comm("0x3", 0, [dict(shape(1 << 26), bytes=8)])]),
    "negative duration": workload([comm("0x4", 0, [shape(1024, duration_us={"samples": 1, "sum": -5e9, "min": -5e9, "max": -5e9})])]),
    "null duration": workload([comm("0x5", 0, [shape(1024, duration_us={"samples": 1, "sum": None, "min": None, "max": None})])]),
    "duplicate shapes": workload([comm("0x6", 0, [shape(1024), shape(1024)])]),
    "calls 2^64-1": workload([comm("0x7", 0, [shape(1024, calls=2**64 - 1)])]),
}
for what, doc in bad.items():
    p, _ = run("merge", write("bad.json", doc), "-o", path("m.json"), rc=2)
    if p and b"bad.json" not in p.stderr and b"communicators[0]" not in p.stderr:
        failures.append(f"{what}: the refusal names neither file nor field: {p.stderr!r}")

# N4: 10 MB of {} beside a valid dump is refused by the value budget, not parsed into a tree.
with open(path("frmem_rank0.json"), "w") as f:
    f.write('{"pg_config":{"0":{"ranks":"[0, 1]"}},"entries":[{"profiling_name":"nccl:all_reduce","process_group":["0","d"],'
            '"input_sizes":[[1024]],"input_dtypes":["Float"]}],"pad":[' + "{}," * ((10 << 20) // 3) + "{}]}")
p, _ = run("import", path("frmem_rank0.json"), "-o", path("w.json"), rc=2)
if p and b"frmem_rank0.json holds more than" not in p.stderr:
    failures.append(f"frmem: {p.stderr!r}")

# N6: more than 200 000 shapes are refused on read (merge had no cap).
with open(path("wl_big.json"), "w") as f:
    f.write(json.dumps(workload([comm("0x1", 0, [])]))[:-4])
    f.write(",".join(json.dumps(shape(i + 1, calls=4)) for i in range(200001)))
    f.write("]}]}")
run("merge", path("wl_big.json"), "-o", path("m.json"), rc=2)

# Flight recorder: hashed group names beside numbered ones; a dump with no entries; the pickle.
hashed = "5a1c0a5b3f1e0d9a6c7b8e2f4d3c2b1a09876543"
entry = lambda pg: {"profiling_name": "nccl:all_reduce", "process_group": [pg, "d"], "input_sizes": [[1024]], "input_dtypes": ["Float"],
                    "output_sizes": [[1024]], "output_dtypes": ["Float"], "collective_seq_id": 1, "is_p2p": False}
dump = {"version": "2.4", "pg_config": {"0": {"name": "0", "desc": "default_pg", "ranks": "[0, 1]"},
                                         hashed: {"name": hashed, "desc": "split", "ranks": "[0, 1]"}},
        "pg_status": {}, "entries": [entry("0"), entry(hashed)]}
p, _ = run("import", write("hashed_rank0.json", dump), "-o", path("h.json"))
if p and p.returncode == 0 and ("pg" + hashed) not in {c["id"] for c in json.load(open(path("h.json")))["communicators"]}:
    failures.append("hashed group name: not imported")
empty = {k: v for k, v in dump.items() if k != "entries"}
p, _ = run("import", write("empty_rank0.json", empty), "-o", path("e.json"))
if p and b"no entries" not in p.stderr:
    failures.append(f"empty dump: {p.stderr!r}")
for protocol in (2, 4):
    with open(path(f"nccl_trace_rank_{protocol}"), "wb") as f:
        pickle.dump(dump, f, protocol=protocol)
    p, _ = run("import", path(f"nccl_trace_rank_{protocol}"), "--rank", "0", "-o", path("pk.json"))
    if p and p.returncode == 0 and json.load(open(path("pk.json")))["communicators"] != json.load(open(path("h.json")))["communicators"]:
        failures.append(f"pickle protocol {protocol}: differs from its JSON")

# Review N15: a pickle dump whose text holds NCCL log lines (a stack frame or a description
# quoting one) is told by its first bytes, read as a dump, not sniffed as a log.
logged = dict(dump, pg_config={k: dict(v, desc="nccl-host:12:12 [0] NCCL INFO AllReduce: opCount 0 sendbuff 0x1 recvbuff 0x2 "
                                                "count 256 datatype 7 op 0 root 0 comm 0x55 [nranks=2] stream 0x3")
                               for k, v in dump["pg_config"].items()})
with open(path("nccl_trace_logged_0"), "wb") as f:
    pickle.dump(logged, f, protocol=2)
p, _ = run("import", path("nccl_trace_logged_0"), "-o", path("pl.json"))
if p and p.returncode == 0 and json.load(open(path("pl.json")))["communicators"] != json.load(open(path("h.json")))["communicators"]:
    failures.append("pickle holding NCCL log text: not read as the dump it is")

# ... and named as a pickle where a log or a workload.json is wanted, not read as one.
p, _ = run("import", path("nccl_trace_logged_0"), "--format", "nccl-log", "-o", path("pn.json"), rc=2)
if p and b"is a pickle (a PyTorch flight-recorder dump), not NCCL's log" not in p.stderr:
    failures.append(f"pickle as --format nccl-log: {p.stderr!r}")
p, _ = run("merge", path("nccl_trace_logged_0"), "-o", path("pm.json"), rc=2)
if p and b"is a pickle (a PyTorch flight-recorder dump), not a cctune.workload/1 file" not in p.stderr:
    failures.append(f"pickle to merge: {p.stderr!r}")

# Item 8: a cctune.workload/1 file (the profiler half writes them) is imported as one.
prof = os.path.join(caps, "ddp/profiler-run/profiler")
if os.path.isdir(prof):
    files = sorted(os.path.join(prof, f) for f in os.listdir(prof) if f.endswith(".json"))
    if files:
        run("import", *files, "-o", path("prof.json"))

# R13 of the 2026-11-28 review: --steps 1e-300 planned 6e301 calls a step, 1e308 made every
# shape rare, nan was dropped without a word, and CLI11's refusal printed the largest double in
# 309 digits. Bounded as the other --steps flags: one short line, exit 2.
one = write("steps_one.json", workload([comm("0x1", 0, [shape(8)])]))
for command in ("merge", "import"):
    for bad in ("1e-300", "1e308", "nan", "inf", "-1e308", "0", "0.5", "1000000001"):
        p, _ = run(command, one, "-o", path("steps.json"), "--steps", bad, rc=2)
        if p and (b"--steps must be from 1 to 1000000000" not in p.stderr or len(p.stderr) > 300):
            failures.append(f"{command} --steps {bad}: {p.stderr!r}")
    p, _ = run(command, one, "-o", path("steps.json"), "--steps", "30")
    if p and p.returncode == 0 and json.load(open(path("steps.json")))["steps"] != 30:
        failures.append(f"{command} --steps 30: not written")

if failures:
    print("\n".join(failures))
    sys.exit(1)
print("workload hardening: all checks passed")
