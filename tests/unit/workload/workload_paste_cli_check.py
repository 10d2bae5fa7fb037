"""`cctune workload import` on captures as users paste them (issue 43, item 5), from
tests/fixtures/workload/pasted/ (README.md there says what each file is):
  workload_paste_cli_check.py CCTUNE SOURCE_DIR SCRATCH
Each file is read for what it holds, or refused in one line (exit 2) that says what it is and
why it cannot be read. Every written file satisfies configs/schema/workload.schema.json."""
import json
import os
import shutil
import subprocess
import sys

import jsonschema

cctune, src, scratch = sys.argv[1:4]
pasted = os.path.join(src, "tests/fixtures/workload/pasted")
schema = json.load(open(os.path.join(src, "configs/schema/workload.schema.json")))
shutil.rmtree(scratch, ignore_errors=True)
os.makedirs(scratch)
failures = []


def imported(name, *args, rc=0, files=None):
    out = os.path.join(scratch, name + ".json")
    paths = [os.path.join(pasted, f) for f in (files or [name])]
    p = subprocess.run([cctune, "workload", "import", *args, *paths, "-o", out], capture_output=True, text=True, timeout=60)
    if p.returncode != rc:
        failures.append(f"{name} {args}: rc {p.returncode}, wanted {rc}: {p.stderr.strip()}")
        return p, None
    if rc == 2 and p.stderr.count("\n") != 1:
        failures.append(f"{name}: the refusal is not one line: {p.stderr!r}")
    if rc != 0:
        return p, None
    w = json.load(open(out))
    jsonschema.validate(w, schema, cls=jsonschema.Draft202012Validator)
    return p, w


def comms(w):
    return sorted((c["id"], c["ranks"], [(s.get("collective"), s["dtype"], s["count"], s["bytes"], s["calls"]) for s in c["calls"]])
                  for c in w["communicators"])


# 1. A host name beyond ASCII in NCCL's key ("héllo", a terminal's "ip……"): every line of that
# process was dropped. Both ranks' calls are read into the communicator their Init lines name.
p, w = imported("non-ascii-host.log")
if w and comms(w) != [("0x7c0b6a1e5d4f3a21", [0, 1], [("allreduce", "float32", 1048576, 4194304, 4)])]:
    failures.append(f"non-ascii host: {comms(w)}")

# 2. Call lines pasted bare (no key, no "NCCL INFO"): refused even with --format nccl-log. They
# are one process's lines under --format nccl-log; without it the refusal says to give it.
p, w = imported("bare-calls.log", "--format", "nccl-log")
if w and comms(w) != [("unmapped:file1/0x55d8a0e2b3c0", [-1], [("allgather", "bfloat16", 4096, 16384, 4)])]:
    failures.append(f"bare calls: {comms(w)}")
p, _ = imported("bare-calls.log", rc=2)
if "--format nccl-log" not in p.stderr:
    failures.append(f"bare calls without --format: {p.stderr!r}")

# 3. Call lines cut, wrapped or elided ("0x..."): "holds no per-call lines ... capture with
# NCCL_DEBUG=INFO" as though the capture had none. The refusal counts them and says what the
# first one lacked.
p, _ = imported("cut-calls.log", rc=2)
if "4 lines look like calls, none whole (the first, line 2: its comm pointer '0x...' is not NCCL's hex pointer" not in p.stderr:
    failures.append(f"cut calls: {p.stderr!r}")

# 4. NCCL Inspector output of format v4.3 (a dump_stats marker, records without a header):
# called "not valid JSON ... pass the dump PyTorch wrote". It is named for what it is.
for args in ((), ("--format", "inspector")):
    p, _ = imported("inspector-v4.3.log", *args, rc=2)
    if "is NCCL Inspector output in a form cctune does not read (format v4.3: a dump_stats marker, records without the header" not in p.stderr:
        failures.append(f"inspector v4.3 {args}: {p.stderr!r}")

# 5. Two ranks' files pasted without keys, sharing a communicator pointer, under --format
# nccl-log: every line of every file was process "log", so they merged into one communicator
# with its calls doubled. Each file stays a process of its own.
p, w = imported("without-keys", "--format", "nccl-log", files=["rank0-without-keys.log", "rank1-without-keys.log"])
if w and comms(w) != [(f"unmapped:file{n}/0x55d0a1b2c3d0", [-1], [("allreduce", "float32", 65536, 262144, 4)]) for n in (1, 2)]:
    failures.append(f"two files without keys: {comms(w)}")

if failures:
    print("\n\n".join(failures))
    sys.exit(1)
print("workload paste: all checks passed")
