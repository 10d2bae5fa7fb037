"""`cctune sweep --backend mpi --workload` under mpirun measures exactly the job's shapes:
  workload_shapes_test.py CCTUNE SCRATCH     (MPIRUN in the environment, else mpirun)
A workload of 2 ranks on 1 node issues 5 shapes over 3 collectives, 3 types and 4 sizes; the
product of those lists would be 36 points per placement. The measured (collective, dtype,
size_bytes) must be the 5 shapes (allgather and reducescatter at NCCL's nBytes, not scaled by
the rank count again), and the dry run's point count must be the number of points measured."""
import json
import os
import re
import shutil
import subprocess
import sys

cctune, scratch = sys.argv[1:3]
mpirun = [os.environ.get("MPIRUN") or "mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "2"]
shutil.rmtree(scratch, ignore_errors=True)
os.makedirs(scratch)

# (collective, dtype, element size, count per rank, op or root, calls per step): nBytes is
# count x size, x 2 ranks for allgather and reducescatter.
calls = [("allreduce", "float32", 4, 1024, {"op": "sum"}, 6), ("allreduce", "float32", 4, 65536, {"op": "sum"}, 1),
         ("allgather", "int32", 4, 512, {}, 2), ("reducescatter", "float64", 8, 256, {"op": "sum"}, 2),
         ("broadcast", "int32", 4, 7, {"root": 0}, 1)]
splits = {"allgather", "reducescatter"}
want = set()
records = []
for coll, dtype, width, count, extra, n in calls:
    nbytes = count * width * (2 if coll in splits else 1)
    want.add((coll, dtype, nbytes))
    records.append({"kind": "collective", "collective": coll, "dtype": dtype, "count": count, "bytes": nbytes, "calls": n,
                    "calls_per_step": n, "applied": [], **extra})
workload = {"schema": "cctune.workload/1", "format": "nccl-log", "sources": ["job.log"], "steps": 1,
            "communicators": [{"id": "0x1", "nranks": 2, "nnodes": 1, "ranks": [0, 1], "calls": records}]}
path = os.path.join(scratch, "job.workload.json")
json.dump(workload, open(path, "w"))

common = ["sweep", "--backend", "mpi", "--workload", path, "--placement", "both", "--max-time", "0.05", "--min-iters", "5"]
dry = subprocess.run(mpirun + [cctune, *common, "--dry-run"], capture_output=True, text=True, timeout=120)
m = re.search(r"^# sweep: (\d+) points .* for the job's (\d+)", dry.stdout, re.M)
if dry.returncode != 0 or not m:
    sys.exit(f"FAIL: dry run rc {dry.returncode}, no point count in:\n{dry.stdout}\n{dry.stderr}")
planned, shapes = int(m.group(1)), int(m.group(2))

out = os.path.join(scratch, "sweep")
run = subprocess.run(mpirun + [cctune, *common, "-o", out], capture_output=True, text=True, timeout=300)
if run.returncode != 0:
    sys.exit(f"FAIL: sweep rc {run.returncode}: {run.stdout[-800:]}\n{run.stderr[-800:]}")
res = json.load(open(os.path.join(out, "results.json")))
points = [p for r in res["runs"] for p in r["points"]]
measured = {(p["collective"], p["dtype"], p["size_bytes"]) for p in points}
recorded = {(p["collective"], p["dtype"], p["size_bytes"]) for p in res["meta"]["settings"]["workload"]["points"]}
print(f"job shapes {len(want)} (dry run says {shapes}); dry run {planned} points; measured {len(points)} points "
      f"at {len(measured)} shapes")
failures = []
if recorded != want:
    failures.append(f"the workload's recorded points {sorted(recorded)} are not the file's {sorted(want)}")
if measured != want:
    failures.append(f"measured shapes {sorted(measured)} are not the job's {sorted(want)}: extra {sorted(measured - want)}, "
                    f"missing {sorted(want - measured)}")
if shapes != len(want):
    failures.append(f"the dry run counts {shapes} job shapes, not {len(want)}")
if planned != len(points) or len(points) != 2 * len(want):  # each shape out of place and in place
    failures.append(f"the dry run plans {planned} points, the sweep measured {len(points)}, want {2 * len(want)}")
# MPI_Bcast has one buffer: out-of-place broadcast is a planned skip; everything else must be ok.
ok = {(p["collective"], p["dtype"], p["size_bytes"]) for p in points if p["status"] == "ok"}
if ok != want:
    failures.append(f"ok shapes {sorted(ok)} are not the job's {sorted(want)}")
if any(p["status"] != "ok" and (p["collective"], p["in_place"]) != ("broadcast", False) for p in points):
    failures.append(f"points not ok: {[(p['collective'], p['size_bytes'], p['status']) for p in points if p['status'] != 'ok']}")
if failures:
    sys.exit("FAIL: " + "\nFAIL: ".join(failures))
print("ok")
