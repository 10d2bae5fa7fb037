#!/usr/bin/env python3
"""Fails when production code names an environment variable that exists only for tests
(CCTUNE_TEST_*, CCTUNE_SELFTEST_*). Such variables are read by the test builds alone
(tests/support: cctune-test and libcctune-selftest.so, docs/TESTING.md "Test hooks");
production reaches test behaviour only through injected seams (src/app/cli/seams.hpp) and the
module path (CCTUNE_NCCL_MODULE).

Any mention counts, not only a getenv() call: a name can be read through a helper, a table
or a lookup function, and a production comment naming one would describe a read that must
not exist.

Production code: .cpp/.hpp/.h/.cu files under core/, comm/, workload/, src/, collectives/, topology/, tuner/ and net/.

Usage: check_test_env.py [ROOT]          check the tree at ROOT (default: the repository)
       check_test_env.py --self-test     plant a read in a scratch tree and check it is caught
"""
import pathlib
import re
import sys
import tempfile

FOLDERS = ("core", "comm", "workload", "src", "collectives", "topology", "tuner", "net")
SUFFIXES = (".cpp", ".hpp", ".h", ".cu")
TEST_ONLY = re.compile(r"CCTUNE_(?:TEST|SELFTEST)_[A-Z0-9_]*")


def findings(root):
    out = []
    for folder in FOLDERS:
        for path in sorted((root / folder).rglob("*")):
            if path.suffix not in SUFFIXES or not path.is_file():
                continue
            for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
                for name in TEST_ONLY.findall(line):
                    out.append(f"{path.relative_to(root)}:{number}: names the test-only variable {name}")
    return out


def self_test():
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        (root / "src" / "app").mkdir(parents=True)
        clean = root / "src" / "app" / "clean.cpp"
        clean.write_text('const char* p = std::getenv("CCTUNE_NCCL_MODULE");\n')
        if findings(root):
            print("self-test FAILED: a production variable was reported")
            return 1
        (root / "net").mkdir()
        (root / "net" / "planted.cpp").write_text('if (std::getenv("CCTUNE_TEST_PLANTED")) sleep(1);\n')
        got = findings(root)
        if len(got) != 1 or "net/planted.cpp:1" not in got[0] or "CCTUNE_TEST_PLANTED" not in got[0]:
            print(f"self-test FAILED: the planted read was not reported exactly once: {got}")
            return 1
    print("self-test: OK (a planted CCTUNE_TEST_ read is reported, CCTUNE_NCCL_MODULE is not)")
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    root = pathlib.Path(argv[1] if len(argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)
    found = findings(root)
    for line in found:
        print(line)
    if found:
        print(f"{len(found)} mention(s) of test-only variables in production code; read them in tests/support "
              "and inject the behaviour through a seam (src/app/cli/seams.hpp)")
        return 1
    print("test_env: OK (no production file names a CCTUNE_TEST_* or CCTUNE_SELFTEST_* variable)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
