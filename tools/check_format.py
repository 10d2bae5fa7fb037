#!/usr/bin/env python3
"""Checks that the C++/CUDA lines changed since a base commit follow .clang-format.

  tools/check_format.py [REPO] [--base REV]      the check (ctest: format)
  tools/check_format.py --self-test              plants a misformatted change in a scratch repository

Only changed lines are judged, as .clang-format's header asks: the tree predates the file and
reformatting it whole would bury every diff under layout. The base is tools/format_base.txt (the
commit the check started from) unless --base names another (a branch's merge base, before a
review). Exit 0: formatted; 1: a line is not (the diff clang-format wants is printed, then the fix);
2: a bad argument or a missing tool; 77: the base commit is not in this clone (a shallow clone
cannot say what changed; ctest reports it skipped, with the reason).
"""
import os
import shutil
import subprocess
import sys
import tempfile

EXTENSIONS = "cpp,hpp,cu,cuh,h,cc"
# Sources written here; fixtures and anything vendored are other people's layout.
PATHS = ["core", "comm", "topology", "collectives", "net", "tuner", "workload", "src", "bench", "tests/unit", "tests/integration",
         "tests/gpu"]
MAX_DIFF_LINES = 200  # what a terminal shows of the diff; the fix below reformats all of it


def tool(names):
    for n in names:
        p = shutil.which(n)
        if p:
            return p
    return None


def run(cmd, cwd):
    return subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def check(repo, base):
    git_cf = tool(["git-clang-format-14", "git-clang-format"])
    cf = tool(["clang-format-14", "clang-format"])
    if not git_cf or not cf:
        print("check_format: clang-format (with git-clang-format) is not installed. Fix: tools/setup.sh --test, or apt-get install clang-format")
        return 2
    if run(["git", "cat-file", "-e", base + "^{commit}"], repo).returncode != 0:
        print(f"check_format: SKIP: the base commit {base} is not in this clone (shallow?); nothing to compare against. "
              "Fix: git fetch --unshallow, or pass --base REV")
        return 77
    paths = [p for p in PATHS if os.path.exists(os.path.join(repo, p))]
    r = run([git_cf, "--binary", cf, "--diff", "--extensions", EXTENSIONS, base, "--"] + paths, repo)
    if r.returncode != 0 and not r.stdout:
        print("check_format: git clang-format failed: " + (r.stderr.strip().splitlines() or ["(no message)"])[-1])
        return 2
    out = r.stdout.strip()
    if not out or out.startswith("no modified files") or out.startswith("clang-format did not modify"):
        print(f"check_format: the lines changed since {base[:12]} follow .clang-format")
        return 0
    lines = out.splitlines()
    files = sorted({l[6:] for l in lines if l.startswith("+++ b/")})
    print("\n".join(lines[:MAX_DIFF_LINES]))
    if len(lines) > MAX_DIFF_LINES:
        print(f"... ({len(lines) - MAX_DIFF_LINES} more lines of diff)")
    print(f"check_format: {len(files)} file(s) have changed lines that .clang-format would lay out otherwise: {', '.join(files)}. "
          f"Fix: git clang-format {base[:12]} -- {' '.join(files)}")
    return 1


def self_test():
    """A scratch repository with the project's .clang-format: a formatted change passes, a misformatted one fails."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with tempfile.TemporaryDirectory() as d:
        def git(*a):
            r = run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *a], d)
            assert r.returncode == 0, r.stderr
        git("init", "-q")
        shutil.copy(os.path.join(here, ".clang-format"), d)
        os.makedirs(os.path.join(d, "core"))
        src = os.path.join(d, "core", "a.cpp")
        with open(src, "w") as f:
            f.write("int  old_layout( int x ){return x;}\n")  # misformatted before the base: not judged
        git("add", ".")
        git("commit", "-qm", "base")
        base = run(["git", "rev-parse", "HEAD"], d).stdout.strip()
        failures = []
        with open(src, "a") as f:
            f.write("int formatted(int x) { return x + 1; }\n")
        if check(d, base) != 0:
            failures.append("a formatted change was refused")
        with open(src, "a") as f:
            f.write("int   misformatted( int x ){\nreturn x+2;}\n")
        if check(d, base) != 1:
            failures.append("a misformatted change passed")
        if check(d, "0" * 40) != 77:
            failures.append("a base missing from the clone was not reported as a skip")
    for m in failures:
        print("check_format --self-test: FAIL: " + m)
    if not failures:
        print("check_format --self-test: ok (formatted change passes, misformatted change fails, missing base skips)")
    return 1 if failures else 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    args, base = [], None
    it = iter(argv[1:])
    for a in it:
        if a == "--base":
            base = next(it, None)
            if not base:
                print("check_format: --base needs a revision. Fix: --base origin/main")
                return 2
        else:
            args.append(a)
    repo = os.path.abspath(args[0] if args else os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if base is None:
        with open(os.path.join(repo, "tools", "format_base.txt")) as f:
            base = f.read().split()[0]
    return check(repo, base)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
