"""The shared-GPU test mode of `cctune sweep` (--test-shared-gpu), one scenario of lifecycle.py:

  lifecycle.py shared_gpu [--gpu] [--shared-gpu] --cctune PATH --mpiexec PATH --workdir DIR

2 supervisors x 2 workers on one GPU (the selftest's, or GPU 0 with --gpu): four NCCL ranks on
four NCCL hosts with distinct NCCL_HOSTIDs, NCCL_NVLS_ENABLE=0 in every worker's environment
(and, with --gpu, in NCCL's own INFO lines), results marked as a test and schema-valid, tune
refused in one line, compare marking the run, --emulate-nodes refused with it.
"""
import json
import os
import subprocess


def worker_identities(outdir):
    """Each worker log's first 'cctune worker: rank R of N on device D, ...; environment: ...' line."""
    found = {}
    logdir = os.path.join(outdir, "workers")
    for name in sorted(os.listdir(logdir)):
        with open(os.path.join(logdir, name), errors="replace") as f:
            text = f.read()
        for line in text.splitlines():
            if line.startswith("cctune worker: rank "):
                head, _, env = line.partition("; environment:")
                words = head.split()
                found[name] = {"rank": int(words[3]), "nranks": int(words[5]), "device": int(words[8].rstrip(",")),
                               "env": dict(kv.split("=", 1) for kv in env.split() if "=" in kv), "log": text}
                break
    return found


def run(lc, opts):
    """The shared-GPU test mode itself: 2 supervisors x 2 workers on one GPU, four NCCL hosts."""
    env = {"CCTUNE_SELFTEST_GPUS": "1", "NCCL_NVLS_ENABLE": "0"}
    if lc.GPU["on"]:
        # One GPU even on a bigger machine; NCCL's INFO lines say which variables it read.
        env.update(CUDA_VISIBLE_DEVICES="0", NCCL_DEBUG="INFO", NCCL_DEBUG_SUBSYS="INIT,ENV")
    sizes = ["-b", "8", "-e", "1K", "-n", "5", "-w", "1", "-c", "1", "--min-iters", "5", "--max-time", "0.03", "--collectives", "allreduce"]
    r = lc.sweep(opts, "shared", sizes + ["--test-shared-gpu", "2"], env, np=2, share=False)
    lc.check(r.rc == 0, "mpirun -np 2 with --test-shared-gpu 2 on one GPU succeeds", r)
    res = r.results()
    g = res["runs"][0]
    lc.check(g["nranks"] == 4 and g["nnodes"] == 4, f"4 ranks on 4 NCCL nodes ({g['nranks']}, {g['nnodes']})")
    lc.check(g.get("test_mode") == "shared-gpu" and g.get("test_shared_gpu") == 2, "the run records test_mode shared-gpu, K=2")
    lc.check(res["meta"]["settings"].get("test_mode") == "shared-gpu", "meta.settings records test_mode shared-gpu")
    try:
        import jsonschema
        schema = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../configs/schema/results.schema.json")
        with open(schema) as f:
            jsonschema.validate(res, json.load(f))
        lc.check(True, "results.json follows configs/schema/results.schema.json")
    except ImportError:
        print("note: python3-jsonschema not installed; schema not checked")
    lc.check(all(p["status"] == "ok" and p.get("wrong") == 0 for p in g["points"]) and g["points"], "every point measured, #wrong 0")
    lc.check("TEST MODE shared-gpu" in r.out, "the table header says TEST MODE shared-gpu", r)
    ids = worker_identities(r.outdir)
    lc.check(len(ids) == 4, f"four worker logs with an identity line ({sorted(ids)})")
    lc.check(sorted(w["rank"] for w in ids.values()) == [0, 1, 2, 3] and all(w["nranks"] == 4 for w in ids.values()), "ranks 0-3 of 4")
    lc.check(all(w["device"] == 0 for w in ids.values()), "all four workers on device 0")
    host_ids = [w["env"].get("NCCL_HOSTID") for w in ids.values()]
    lc.check(None not in host_ids and len(set(host_ids)) == 4, f"four distinct NCCL_HOSTIDs: {host_ids}")
    lc.check(all(w["env"].get("NCCL_NVLS_ENABLE") == "0" for w in ids.values()), "NCCL_NVLS_ENABLE=0 in every worker's environment")
    if lc.GPU["on"]:
        # NCCL's own word: it read both variables (misc/param.cc, misc/utils.cc in NCCL 2.28).
        for name, w in sorted(ids.items()):
            lc.check("NCCL_NVLS_ENABLE set by environment to 0." in w["log"], f"{name}: NCCL says NCCL_NVLS_ENABLE set by environment to 0.")
            lc.check(f"NCCL_HOSTID set by environment to {w['env']['NCCL_HOSTID']}" in w["log"], f"{name}: NCCL read its NCCL_HOSTID")
    lc.check(not os.path.exists(os.path.join(r.outdir, "profile.json")), "no profile written from a test-mode sweep")
    lc.check("tune: skipped: measured in the shared-gpu test mode" in r.out, "the sweep says why it wrote no profile", r)
    results = os.path.join(r.outdir, "results.json")
    t = subprocess.run([opts.cctune, "tune", results], capture_output=True, text=True)
    lines = [l for l in t.stderr.splitlines() if l.startswith("cctune")]
    lc.check(t.returncode == 2 and len(lines) == 1 and "re-run the sweep without --test-shared-gpu" in lines[0],
             f"cctune tune refuses in one line: {lines}")
    fdir = os.path.join(opts.workdir, "shared_functional")
    t = subprocess.run([opts.cctune, "tune", "--functional-check", results, "-o", fdir], capture_output=True, text=True)
    if not lc.GPU["on"]:
        # The selftest module's version ("selftest") is no NCCL version, which tune refuses next:
        # what matters here is that the test-mode refusal is gone.
        lc.check(t.returncode == 2 and "test mode" not in t.stderr and "meta.versions.nccl" in t.stderr,
                 f"tune --functional-check gets past the test-mode refusal: {t.returncode} {t.stderr[-300:]}")
    else:
        lc.check(t.returncode == 0, f"cctune tune --functional-check takes test-mode results: {t.returncode} {t.stderr[-300:]}")
    if t.returncode == 0:
        with open(os.path.join(fdir, "profile.json")) as f:
            lc.check(json.load(f)["provenance"].get("test_mode") == "shared-gpu", "the functional-check profile is marked test_mode")
        with open(os.path.join(fdir, "nccl.env")) as f:
            lc.check(any(l.startswith("# FUNCTIONAL CHECK ONLY") for l in f), "its nccl.env says it is a functional check")
    c = subprocess.run([opts.cctune, "compare", results], capture_output=True, text=True)
    lc.check(c.returncode == 0 and "TEST MODE shared-gpu: not performance" in c.stdout, "cctune compare marks the run")
    r = lc.sweep(opts, "shared_emulate", sizes + ["--test-shared-gpu", "2", "--emulate-nodes", "2"], env)
    lc.one_line_error(r, 2, "--test-shared-gpu and --emulate-nodes cannot be combined")
    lc.check(not lc.stray_workers(os.path.join(opts.workdir, "shared")), "no worker left running")
