#!/usr/bin/env python3
"""Reads what NVIDIA/nccl-tests' *_perf binaries print (bench/nccl_tests_side_by_side.sh) and
writes, per size, the median over cycles (-N) of the out-of-place time column as the CSV that
bench/side_by_side_table.py reads (size_bytes,time_us).

    nccl_tests_output.py --coll C --nranks N --warmup W --iters N --cycles K --sizes S1,S2,...
                         [--dtype float] [--op sum] [--root 0] [--impl -|native|grouped]
                         --csv OUT.csv STDOUT_FILE...

Each STDOUT_FILE is one complete run (the script runs one per size when the sizes are not a
geometric series nccl-tests' -b/-e/-f can walk). The columns come from the table's own header
line ('#  size  count  type  redop  root  time ...'): the first 'time' is out-of-place. Lines
beginning with '#' are nccl-tests' comments; NCCL's own lines ('NCCL version ...', 'host:pid:tid
[dev] NCCL INFO|WARN ...') are counted and reported; any other line that is not a table row of the
expected shape is an error naming the file, the line number and the line. Each requested size
must appear exactly K times over the files, and no other size may; the header's rank count,
-w/-n, nGpus 1 and the run's closing line are checked. Every problem is printed as one
'FAIL: ...' line; exit 1 when there is any, 0 after writing the CSV."""
import argparse
import math
import re
import statistics
import sys

ROOTED = {"broadcast", "reduce", "gather", "scatter"}
OP_PRINTED = {"allreduce", "reducescatter", "reduce", "sendrecv"}  # the others print redop 'none'
P2P_TWO_IMPLS = {"alltoall", "gather", "scatter"}
NATIVE_SINCE = 22800  # NCCL 2.28.0: ncclAlltoAll/ncclGather/ncclScatter, which nccl-tests calls when built and run with it
# NCCL's own stdout: its version line, and its log lines (an optional '[timestamp] ', host:pid:tid [device],
# for WARN the source file:line, then 'NCCL INFO|WARN|...').
NCCL_LINE = re.compile(r"^(NCCL version \S+|(\[[^]]*\] )?\S+:\d+:\d+ \[-?\d+\] (\S+:\d+ )?NCCL (INFO|WARN|TRACE|ABORT)\b)")
VERSION = re.compile(r"^# nccl-tests version (\S+) nccl-headers=(\d+) nccl-library=(\d+)")
SETTINGS = re.compile(r"^# nThread (\d+) nGpus (\d+) .*warmup iters: (\d+) iters: (\d+)")


class Run:
    """What one file held: table rows (size, out-of-place time) and the checks' findings."""

    def __init__(self, path):
        self.path, self.rows, self.errors, self.nccl_lines = path, [], [], 0
        self.version = self.settings = self.columns = None
        self.ranks = 0
        self.concluded = False


def parse_row(tokens, columns, args):
    """(size_bytes, time_us) of one table row, or the reason it is not one."""
    if len(tokens) != len(columns):
        return f"{len(tokens)} fields where the header has {len(columns)}"
    field = dict(zip(columns, tokens))  # a repeated name keeps its last value: read 'time' by index below
    try:
        size, _ = int(field["size"]), int(field["count"])
        time_us = float(tokens[columns.index("time")])
    except ValueError:
        return "size, count or time is not a number"
    wrong = [tokens[i] for i, name in enumerate(columns) if name == "#wrong"]
    if any(w not in ("N/A", "0") for w in wrong):
        return f"nccl-tests counted wrong results ({' / '.join(wrong)} in #wrong): the operation itself is broken here"
    if not math.isfinite(time_us) or time_us <= 0:
        return f"out-of-place time {tokens[columns.index('time')]} is not a positive time"
    if field["type"] != args.dtype:
        return f"type {field['type']}, expected {args.dtype} (-d {args.dtype})"
    redop = args.op if args.coll in OP_PRINTED else "none"
    if field["redop"] != redop:
        return f"redop {field['redop']}, expected {redop} (-o {args.op})"
    if field["root"] != (str(args.root) if args.coll in ROOTED else "-1"):
        return f"root {field['root']}, expected {args.root if args.coll in ROOTED else -1} (-r {args.root})"
    return size, time_us


def read_header(line, run):
    """Takes what the '#' lines say; True when the line was one of them."""
    if m := VERSION.match(line):
        if run.version:
            run.errors.append("two '# nccl-tests version' lines: several runs in one file (not built with MPI=1?)")
        run.version = (m.group(1), int(m.group(2)), int(m.group(3)))
    elif m := SETTINGS.match(line):
        run.settings = tuple(int(g) for g in m.groups())
    elif re.match(r"^#\s+Rank\s+\d+\s", line):
        run.ranks += 1
    elif line.startswith("# Collective test concluded"):
        run.concluded = True
    elif line.split()[1:3] == ["size", "count"]:
        run.columns = line.split()[1:]
        if "time" not in run.columns:
            run.errors.append(f"the table has no 'time' column ({' '.join(run.columns)}): run without -C 1")
    return line.startswith("#")


def read_run(path, args):
    run = Run(path)
    with open(path, errors="replace") as f:
        for number, raw in enumerate(f, start=1):
            line = raw.rstrip("\n")
            if not line.strip() or read_header(line, run):
                continue
            if NCCL_LINE.match(line):
                run.nccl_lines += 1
                continue
            got = "no table header line before it" if run.columns is None else parse_row(line.split(), run.columns, args)
            if isinstance(got, str):
                run.errors.append(f"{path}:{number}: unparsable line ({got}): {line.strip()!r}")
            else:
                run.rows.append(got)
    check_run(run, args)
    return run


def check_run(run, args):
    """The checks on a whole file: it ran what was asked, on every rank, to the end."""
    if run.version is None:
        run.errors.append(f"{run.path}: no '# nccl-tests version' line: not nccl-tests output")
    elif args.coll in P2P_TWO_IMPLS:
        _, headers, library = run.version
        impl = "native" if min(headers, library) >= NATIVE_SINCE else "grouped"
        if impl != args.impl:
            run.errors.append(f"{run.path}: nccl-tests (NCCL headers {headers}, library {library}) runs {args.coll} as {impl}"
                              f" calls, cctune was asked for {args.impl}: set P2P_IMPL={impl}")
    if run.settings is None:
        run.errors.append(f"{run.path}: no '# nThread .. nGpus .. warmup iters: W iters: N' line: an nccl-tests version this"
                          " parser does not know")
    elif run.settings != (1, 1, args.warmup, args.iters):
        run.errors.append(f"{run.path}: ran nThread {run.settings[0]} nGpus {run.settings[1]} -w {run.settings[2]}"
                          f" -n {run.settings[3]}, asked nThread 1 nGpus 1 -w {args.warmup} -n {args.iters}")
    if run.ranks != args.nranks:
        run.errors.append(f"{run.path}: {run.ranks} '#  Rank' lines, expected {args.nranks} ranks")
    if run.columns is None:
        run.errors.append(f"{run.path}: no table header line ('#  size  count  type ...')")
    if not run.concluded:
        run.errors.append(f"{run.path}: no '# Collective test concluded' line: the run stopped early")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--coll", required=True)
    p.add_argument("--nranks", type=int, required=True)
    p.add_argument("--warmup", type=int, required=True)
    p.add_argument("--iters", type=int, required=True)
    p.add_argument("--cycles", type=int, required=True)
    p.add_argument("--sizes", required=True)
    p.add_argument("--dtype", default="float")
    p.add_argument("--op", default="sum")
    p.add_argument("--root", type=int, default=0)
    p.add_argument("--impl", default="-")
    p.add_argument("--csv", required=True)
    p.add_argument("files", nargs="+")
    args = p.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]

    runs = [read_run(path, args) for path in args.files]
    errors = [e for r in runs for e in r.errors]
    times = {}
    for r in runs:
        for size, t in r.rows:
            times.setdefault(size, []).append(t)
    for size in sizes:
        got = len(times.get(size, []))
        if got != args.cycles:
            errors.append(f"{args.coll} size {size} B: {got} rows over {len(runs)} file(s), expected {args.cycles}"
                          f" (one per cycle, -N {args.cycles})" + (": missing" if got == 0 else ""))
    for size in sorted(set(times) - set(sizes)):
        errors.append(f"{args.coll} size {size} B: not asked for ({len(times[size])} rows)")
    if errors:
        for e in errors:
            print(f"FAIL: {e}")
        return 1
    with open(args.csv, "w") as f:
        f.write("size_bytes,time_us\n")
        for size in sizes:
            f.write(f"{size},{statistics.median(times[size])}\n")
    nccl = sum(r.nccl_lines for r in runs)
    version = runs[0].version
    print(f"nccl-tests {version[0]} {args.coll}: {len(sizes)} sizes x {args.cycles} cycles, {args.nranks} ranks, NCCL library"
          f" {version[2]}" + (f"; {nccl} NCCL log line(s) left out of the table" if nccl else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
