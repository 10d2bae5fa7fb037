#!/usr/bin/env python3
"""bench/nccl_tests_side_by_side.sh and its parser (bench/nccl_tests_output.py) without a GPU.

The parser on nccl-tests 2.19.6 output (tests/fixtures/nccl_tests/*.2gpu.txt, two ranks, -w 5 -n 20
-N 3, 256 B to 16 MiB by 16; written from its src/util.cu formats, the header lines as the real
binary prints them; *.nogpu.txt is the real binary failing without a GPU): the median of the
out-of-place column per size; a failed run, an unparsable line, a missing size, a cut-off run and two runs in one file fail
naming what; NCCL's own log lines are counted, not fatal. The script: a missing binary is one line
naming NCCL_TESTS_DIR; without a GPU it skips; with stand-ins for nvidia-smi (2 GPUs), mpirun
(runs the binary once, as rank 0 prints) and cctune (writes results.json from the fixtures' medians,
times a ratio), it passes at ratio 1, fails at 1.05, passes the flags nccl-tests and cctune must
share, and runs one nccl-tests process per size when the sizes are not a geometric series.

    nccl_tests_side_by_side_test.py REPO_ROOT"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = sys.argv[1]
PARSER = os.path.join(ROOT, "bench", "nccl_tests_output.py")
SCRIPT = os.path.join(ROOT, "bench", "nccl_tests_side_by_side.sh")
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "nccl_tests")
SIZES = [256, 4096, 65536, 1048576, 16777216]
COLLS = {"allreduce": ("all_reduce_perf", "-"), "alltoall": ("alltoall_perf", "native"), "gather": ("gather_perf", "native")}


def check(cond, what):
    if not cond:
        print(f"FAIL: {what}")
        sys.exit(1)


def fixture(coll):
    return os.path.join(FIXTURES, f"{COLLS[coll][0]}.2gpu.txt")


def oop_medians(coll):
    """The fixture's out-of-place time per size, read independently of the parser."""
    times = {}
    with open(fixture(coll)) as f:
        for line in f:
            t = line.split()
            if t and not line.startswith("#") and t[0].isdigit():
                times.setdefault(int(t[0]), []).append(float(t[5]))
    return {s: statistics.median(v) for s, v in times.items()}


def parse(coll, files, tmp, sizes=SIZES, **kw):
    args = [sys.executable, PARSER, "--coll", coll, "--nranks", "2", "--warmup", "5", "--iters", "20", "--cycles", "3",
            "--sizes", ",".join(map(str, sizes)), "--impl", COLLS[coll][1], "--csv", f"{tmp}/out.csv"]
    for k, v in kw.items():
        args += [f"--{k}", str(v)]
    r = subprocess.run(args + files, capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def edited(tmp, coll, edit):
    """A copy of the fixture's lines after edit(lines)."""
    with open(fixture(coll)) as f:
        lines = f.readlines()
    path = f"{tmp}/{coll}.edited.txt"
    with open(path, "w") as f:
        f.writelines(edit(lines))
    return path


def parser_tests(tmp):
    for coll in COLLS:
        rc, text = parse(coll, [fixture(coll)], tmp)
        check(rc == 0 and "5 sizes x 3 cycles, 2 ranks" in text and "1 NCCL log line" in text, f"{coll} fixture:\n{text}")
        with open(f"{tmp}/out.csv") as f:
            rows = [line.strip().split(",") for line in f][1:]
        want = oop_medians(coll)
        check([(int(s), float(t)) for s, t in rows] == [(s, want[s]) for s in SIZES], f"{coll} medians: {rows} != {want}")

    bad = "h200-node: Test NCCL failure common.cu:391 'unhandled cuda error'\n"
    path = edited(tmp, "allreduce", lambda ls: ls[:20] + [bad] + ls[20:])
    rc, text = parse("allreduce", [path], tmp)
    check(rc == 1 and ":21: unparsable line" in text and "unhandled cuda error" in text, f"a foreign line fails, named:\n{text}")

    path = edited(tmp, "allreduce", lambda ls: [x for x in ls if not x.lstrip().startswith("65536 ")])
    rc, text = parse("allreduce", [path], tmp)
    check(rc == 1 and "size 65536 B: 0 rows" in text and "missing" in text, f"a missing size fails, named:\n{text}")

    def checked(ls, wrong):  # the #wrong columns as nccl-tests -c 1 prints them
        return [" ".join(wrong if t == "N/A" else t for t in x.split()) + "\n" if x.lstrip()[:1].isdigit() else x for x in ls]
    rc, text = parse("allreduce", [edited(tmp, "allreduce", lambda ls: checked(ls, "0"))], tmp)
    check(rc == 0, f"#wrong 0 (nccl-tests -c 1) reads:\n{text}")
    rc, text = parse("allreduce", [edited(tmp, "allreduce", lambda ls: checked(ls, "3"))], tmp)
    check(rc == 1 and "nccl-tests counted wrong results (3 / 3 in #wrong)" in text, f"wrong results fail, named:\n{text}")

    path = edited(tmp, "gather", lambda ls: ls[:20])
    rc, text = parse("gather", [path], tmp)
    check(rc == 1 and "no '# Collective test concluded'" in text and "size 16777216 B: 1 rows" in text,
          f"a run cut short fails:\n{text}")

    with open(fixture("alltoall")) as f:
        once = f.read()
    with open(f"{tmp}/twice.txt", "w") as f:
        f.write(once + once)
    rc, text = parse("alltoall", [f"{tmp}/twice.txt"], tmp)
    check(rc == 1 and "two '# nccl-tests version' lines" in text, f"two runs in one file fail:\n{text}")

    logs = ["h200-node:41230:41230 [0] NCCL INFO Bootstrap: Using eth0:10.0.0.2<0>\n",
            "[2026-11-28 13:50:01] h200-node:41231:41300 [1] transport/p2p.cc:275 NCCL WARN P2P: something\n"]
    path = edited(tmp, "allreduce", lambda ls: ls[:9] + logs + ls[9:])
    rc, text = parse("allreduce", [path], tmp)
    check(rc == 0 and "3 NCCL log line" in text, f"NCCL's log lines are counted and left out:\n{text}")

    # Captured from the real binary (nccl-tests 2.19.6, MPI=1, mpirun -np 2) on a host without a GPU.
    rc, text = parse("allreduce", [os.path.join(FIXTURES, "all_reduce_perf.nogpu.txt")], tmp)
    check(rc == 1 and ":1: unparsable line" in text and "Test CUDA failure util.cu:674" in text
          and "no '# Collective test concluded'" in text and "size 256 B: 0 rows" in text, f"a failed run fails:\n{text}")

    rc, text = parse("allreduce", [fixture("allreduce")], tmp, op="max")
    check(rc == 1 and "redop sum, expected max" in text, f"a table of another op fails:\n{text}")
    rc, text = parse("alltoall", [fixture("alltoall")], tmp, impl="grouped")
    check(rc == 1 and "set P2P_IMPL=native" in text, f"another p2p implementation than nccl-tests' fails:\n{text}")


STUB_MPIRUN = r"""#!/usr/bin/env python3
import os, sys
with open(os.environ["STUB_LOG"], "a") as f:
    f.write("mpirun NCCL_NVLS_ENABLE=%s %s\n" % (os.environ.get("NCCL_NVLS_ENABLE"), " ".join(sys.argv[1:])))
args = sys.argv[1:]
if args == ["--version"]:
    sys.exit(print("mpirun (stand-in)"))
while not args[0].startswith("/"):  # mpirun's own options, up to the binary's path
    args = args[2:] if args[0] in ("-np", "-x", "--bind-to", "--mca") else args[1:]
os.execv(args[0], args)
"""

# A stand-in nccl-tests binary: the fixture, its rows limited to -b..-e.
STUB_PERF = r"""#!/usr/bin/env python3
import os, sys
a = sys.argv[1:]
b, e = int(a[a.index("-b") + 1]), int(a[a.index("-e") + 1])
for line in open(FIXTURE):
    t = line.split()
    if line.startswith("#") or not t or not t[0].isdigit() or b <= int(t[0]) <= e:
        sys.stdout.write(line)
    if line.startswith("# Out of bounds"):
        sys.stdout.write(os.environ.get("STUB_EXTRA", ""))
"""

# A stand-in cctune: results.json whose batch_us are the fixtures' medians times STUB_RATIO[coll].
STUB_CCTUNE = r"""#!/usr/bin/env python3
import json, os, sys
a = sys.argv[1:]
with open(os.environ["STUB_LOG"], "a") as f:
    f.write("cctune " + " ".join(a) + "\n")
out, sizes = a[a.index("-o") + 1], [int(s) for s in a[a.index("--sizes") + 1].split(",")]
want, ratio = json.loads(os.environ["STUB_TIMES"]), json.loads(os.environ["STUB_RATIO"])
points = []
for coll in a[a.index("--collectives") + 1].split(","):
    for s in sizes:
        p = {"collective": coll, "size_bytes": s, "in_place": False, "status": "ok",
             "batch_us": want[coll][str(s)] * ratio.get(coll, 1.0)}
        if coll in ("alltoall", "gather", "scatter"):
            p["impl"] = "native"
        points.append(p)
os.makedirs(out)
json.dump({"runs": [{"backend": "nccl", "points": points}]}, open(out + "/results.json", "w"))
"""


def write_exe(path, text):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, 0o755)


def stubs(tmp):
    bin_dir, nt_dir = f"{tmp}/bin", f"{tmp}/nccl-tests"
    os.makedirs(bin_dir)
    os.makedirs(nt_dir)
    write_exe(f"{bin_dir}/nvidia-smi", "#!/bin/sh\n[ \"$1\" = -L ] && printf 'GPU 0: NVIDIA H200 (UUID: a)\\nGPU 1: NVIDIA H200 (UUID: b)\\n'\nexit 0\n")
    write_exe(f"{bin_dir}/mpirun", STUB_MPIRUN)
    write_exe(f"{bin_dir}/cctune", STUB_CCTUNE)
    for coll, (prog, _) in COLLS.items():
        write_exe(f"{nt_dir}/{prog}", STUB_PERF.replace("open(FIXTURE)", f"open({fixture(coll)!r})"))
    return bin_dir, nt_dir


def run_script(tmp, nt_dir, bin_dir, env, out="out"):
    log = f"{tmp}/calls.log"
    if os.path.exists(log):
        os.remove(log)
    times = {c: {str(s): t for s, t in oop_medians(c).items()} for c in COLLS}
    full = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "CCTUNE": f"{bin_dir}/cctune", "STUB_LOG": log,
            "STUB_TIMES": json.dumps(times), "STUB_RATIO": "{}", "COLLS": ",".join(COLLS),
            "SIZES": ",".join(map(str, SIZES)), "NT_CYCLES": "3", "RUNS": "2",
            "ITERS": "20", **env}  # the fixtures' -n (the script's default is 200)
    r = subprocess.run(["bash", SCRIPT, nt_dir, f"{tmp}/{out}"], capture_output=True, text=True, env=full)
    calls = open(log).read() if os.path.exists(log) else ""
    return r.returncode, r.stdout + r.stderr, calls


def script_tests(tmp):
    r = subprocess.run(["bash", SCRIPT, f"{tmp}/no-such-dir", f"{tmp}/o"], capture_output=True, text=True)
    lines = (r.stdout + r.stderr).strip().splitlines()
    check(r.returncode == 1 and len(lines) == 1 and f"NCCL_TESTS_DIR={tmp}/no-such-dir" in lines[0]
          and "all_reduce_perf" in lines[0], f"a missing binary is one line naming NCCL_TESTS_DIR: {lines}")

    bin_dir, nt_dir = stubs(tmp)
    no_gpu = f"{tmp}/nogpu"
    os.makedirs(no_gpu)
    write_exe(f"{no_gpu}/nvidia-smi", "#!/bin/sh\nexit 0\n")
    r = subprocess.run(["bash", SCRIPT, nt_dir, f"{tmp}/o"], capture_output=True, text=True,
                       env={**os.environ, "PATH": f"{no_gpu}:{os.environ['PATH']}", "COLLS": ",".join(COLLS)})
    check(r.returncode == 0 and r.stdout.startswith("SKIP: "), f"no GPU: SKIP, exit 0: {r.returncode} {r.stdout}{r.stderr}")

    rc, text, calls = run_script(tmp, nt_dir, bin_dir, {})
    check(rc == 0 and "nccl_tests_side_by_side: PASS (15 of 15" in text and "cctune batch_us / nccl-tests" in text,
          f"equal times pass:\n{text}")
    nt = [c for c in calls.splitlines() if c.startswith("mpirun") and "_perf " in c]
    check(len(nt) == 6 and all("NCCL_NVLS_ENABLE=0 " in c and "--allow-run-as-root" in c and " -np 2 " in c
                               and " -g 1 " in c and " -b 256 -e 16777216 -f 16 -w 5 -n 20 -N 3 " in c
                               and " -d float -o sum -r 0 -c 1 -a 1 " in c for c in nt), f"nccl-tests' flags:\n{calls}")
    cct = [c for c in calls.splitlines() if c.startswith("cctune sweep")]
    check(len(cct) == 2 and all("--gpus 2 " in c and "--placement out --p2p-impl native -d float32 --op sum --root 0" in c
                                and " -w 5 -n 20 -c 0 " in c for c in cct), f"cctune's flags:\n{calls}")

    rc, text, _ = run_script(tmp, nt_dir, bin_dir, {"STUB_RATIO": json.dumps({"gather": 1.05})})
    check(rc == 1 and "nccl_tests_side_by_side: FAIL (5 of 15" in text and "gather:native:out 16777216" in text,
          f"5 % slower fails:\n{text}")

    rc, text, _ = run_script(tmp, nt_dir, bin_dir, {"STUB_EXTRA": "Segmentation fault in rank 1\n"})
    check(rc == 1 and "FAIL: nccl-tests all_reduce_perf's output (run 1)" in text and "'Segmentation fault in rank 1'" in text,
          f"an unparsable nccl-tests line fails the script, named:\n{text}")

    rc, text, calls = run_script(tmp, nt_dir, bin_dir, {"SIZES": "256,4096,16777216", "RUNS": "1"})
    nt = [c for c in calls.splitlines() if c.startswith("mpirun") and "_perf " in c]
    check(rc == 0 and "PASS (9 of 9" in text and len(nt) == 9 and sum(" -b 4096 -e 4096 " in c for c in nt) == 3,
          f"sizes that are no geometric series: one nccl-tests run each:\n{text}\n{calls}")

    rc, text, calls = run_script(tmp, nt_dir, bin_dir, {"NT_SPAN": "size", "RUNS": "1"})
    nt = [c for c in calls.splitlines() if c.startswith("mpirun") and "_perf " in c]
    check(rc == 0 and "PASS (15 of 15" in text and len(nt) == 15 and sum(" -b 65536 -e 65536 " in c for c in nt) == 3,
          f"NT_SPAN=size: one nccl-tests run per size even for a geometric series:\n{text}\n{calls}")

    rc, text, calls = run_script(tmp, nt_dir, bin_dir, {"NT_CHECK": "0", "RUNS": "1"})
    nt = [c for c in calls.splitlines() if c.startswith("mpirun") and "_perf " in c]
    check(rc == 0 and nt and all(" -c 0 " in c for c in nt), f"NT_CHECK=0 runs nccl-tests with -c 0:\n{calls}")

    rc, text, _ = run_script(tmp, nt_dir, bin_dir, {"NT_CHECK": "2"})
    check(rc == 2 and "NT_CHECK='2' is not 0 or 1" in text, f"a bad NT_CHECK is refused:\n{text}")

    rc, text, _ = run_script(tmp, nt_dir, bin_dir, {"NT_SPAN": "sizes"})
    check(rc == 2 and "NT_SPAN='sizes' is not series or size" in text, f"a bad NT_SPAN is refused:\n{text}")

    rc, text, _ = run_script(tmp, nt_dir, bin_dir, {"SIZES": "256,1000"})
    check(rc == 2 and "not a multiple of 16 B x 2 GPUs" in text, f"a size nccl-tests would round is refused:\n{text}")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        parser_tests(tmp)
    with tempfile.TemporaryDirectory() as tmp:
        script_tests(tmp)
    print("nccl_tests_side_by_side_test: PASS")


if __name__ == "__main__":
    main()
