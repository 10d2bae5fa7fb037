#!/usr/bin/env python3
"""Plants wrong includes into a copy of the production tree and asserts that
tools/check_layers.py fails on each, naming the file and the edge, and passes on the
unplanted copy (so the check can fail, and fails for the reason planted).

Usage: check_layers_test.py REPOSITORY_ROOT
"""
import pathlib
import shutil
import subprocess
import sys
import tempfile

FOLDERS = ("core", "comm", "workload", "src", "collectives", "topology", "net", "tuner")

# (new file planted in a module, its include, text the check must print). New files, so
# that renames elsewhere never break this test; each target is a header that exists.
PLANTS = [
    ("core/planted.hpp", '#include "app/cli/session.hpp"', "core/planted.hpp:2: 'core' may not include 'app-cli'"),
    ("topology/planted.cpp", '#include "collectives/engine.hpp"', "'topology' may not include 'collectives'"),
    ("comm/planted.hpp", '#include "topology/topology.hpp"', "'comm' may not include 'topology'"),
    ("workload/planted.cpp", '#include "runtime/sweep_plan.hpp"', "'workload' may not include 'runtime'"),
    ("src/app/report/planted.cpp", '#include "app/cli/session.hpp"', "'report' may not include 'app-cli'"),
    # The app floor's rooms (docs/ARCHITECTURE.md "The app floor"): an include back up a floor,
    # which would close a cycle, fails like any other.
    ("src/app/cli/planted.cpp", '#include "app/run/job_run.hpp"', "'app-cli' may not include 'app-run'"),
    ("src/app/run/planted.cpp", '#include "app/sweep/confirm_round.hpp"', "'app-run' may not include 'app-sweep'"),
    ("src/app/sweep/planted.cpp", '#include "app/tune/tune_options.hpp"', "'app-sweep' may not include 'app-tune'"),
    ("tuner/selection/planted.hpp", "#include <mpi.h>", "pure module 'selection' includes <mpi.h>"),
    ("src/diagnose/planted.cpp", "#include <nccl.h>", "pure module 'diagnose' includes <nccl.h>"),
    ("net/planted.hpp", '#include "collectives/rank_comm.hpp"', 'includes "collectives/rank_comm.hpp", which does not exist'),
]


def run_check(tree):
    return subprocess.run([sys.executable, str(tree / "tools/check_layers.py"), str(tree)],
                          capture_output=True, text=True)


def copy_tree(repo, dest):
    for folder in FOLDERS:
        shutil.copytree(repo / folder, dest / folder, ignore=shutil.ignore_patterns("CMakeLists.txt"))
    (dest / "docs").mkdir()
    shutil.copy(repo / "docs/ARCHITECTURE.md", dest / "docs")
    (dest / "tools").mkdir()
    shutil.copy(repo / "tools/check_layers.py", dest / "tools")


def main():
    repo = pathlib.Path(sys.argv[1]).resolve()
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        tree = pathlib.Path(tmp)
        copy_tree(repo, tree)
        clean = run_check(tree)
        if clean.returncode != 0:
            failures.append(f"unplanted copy: exit {clean.returncode}, expected 0:\n{clean.stdout}{clean.stderr}")
        for rel, line, expected in PLANTS:
            path = tree / rel
            path.write_text("#pragma once\n" + line + "\n")
            result = run_check(tree)
            path.unlink()
            if result.returncode != 1 or expected not in result.stdout:
                failures.append(f"planted {line!r} in {rel}: exit {result.returncode}, expected 1 and "
                                f"{expected!r} in:\n{result.stdout}{result.stderr}")
        (tree / "src/newmodule").mkdir()
        (tree / "src/newmodule/x.hpp").write_text("#pragma once\n")
        result = run_check(tree)
        if result.returncode != 1 or "src/newmodule/x.hpp: in no module" not in result.stdout:
            failures.append(f"a folder missing from the table passed: {result.stdout}")
    for f in failures:
        print("FAIL:", f)
    print(f"{len(PLANTS) + 2 - len(failures)} of {len(PLANTS) + 2} checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
