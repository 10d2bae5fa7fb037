"""The profiler half's files as the rest of cctune reads them:
  profiler_output_check.py DRIVER CCTUNE SOURCE_DIR SCRATCH
Two driver processes (ranks 0 and 1 of one communicator) each write
workload.<host>.<pid>.<tag>.json; both satisfy configs/schema/workload.schema.json and
`cctune workload merge` combines them (collective and group counts agree, sends and receives add up)."""
import glob
import json
import os
import shutil
import subprocess
import sys

import jsonschema

driver, cctune, src, scratch = sys.argv[1:5]
schema = json.load(open(os.path.join(src, "configs/schema/workload.schema.json")))
shutil.rmtree(scratch, ignore_errors=True)
os.makedirs(scratch)
env = dict(os.environ, CCTUNE_WORKLOAD=scratch, CCTUNE_WORKLOAD_INTERVAL="0")
for r in (0, 1):
    subprocess.run([driver, "rank", str(r)], env=env, check=True, timeout=300)
files = sorted(glob.glob(os.path.join(scratch, "workload.*.json")))
assert len(files) == 2, files
for f in files:
    w = json.load(open(f))
    jsonschema.validate(w, schema, cls=jsonschema.Draft202012Validator)
    assert w["format"] == "nccl-profiler", w["format"]
merged = os.path.join(scratch, "merged.json")
p = subprocess.run([cctune, "workload", "merge", *files, "-o", merged], capture_output=True, text=True, timeout=60)
assert p.returncode == 0, p.stderr
m = json.load(open(merged))
jsonschema.validate(m, schema, cls=jsonschema.Draft202012Validator)
[comm] = m["communicators"]
assert comm["id"] == "0x1234" and comm["ranks"] == [0, 1] and comm["nranks"] == 2, comm
calls = {(c.get("collective", c["kind"]), c["count"]): c for c in comm["calls"]}
ar = calls[("allreduce", 1 << 20)]
assert ar["calls"] == 7 and ar["bytes"] == 4 << 20, ar  # 5 lone, 2 in the group
assert ar["duration_us"]["samples"] == 10 and ar["duration_us"]["clock"] == "gpu", ar["duration_us"]
assert ar["duration_us"]["min"] == 300.0 and ar["duration_us"]["max"] == 301.0, ar["duration_us"]
assert ar["applied"] == [{"algo": "ring", "proto": "simple", "channels": 2, "calls": 7}], ar["applied"]
ag = calls[("allgather", 4096)]  # the caller's view (bf16 elements), though NCCL's task event says int8 bytes
assert ag["bytes"] == 4096 * 2 * 2 and ag["dtype"] == "bfloat16" and ag["calls"] == 4 and ag["applied"][0]["calls"] == 4, ag
assert calls[("send", 1000)]["calls"] == 3 and calls[("recv", 1000)]["calls"] == 3
[group] = comm["groups"]  # the same collective-only group on both ranks: counted per rank, not added
assert group["calls"] == 2 and [(g["collective"], g["count"]) for g in group["members"]] == [("allreduce", 1 << 20), ("allgather", 4096)], group
print("ok:", len(files), "files valid and merged")
