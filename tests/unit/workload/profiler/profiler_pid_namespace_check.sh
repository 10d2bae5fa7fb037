#!/bin/sh
# Two processes with the same host name and the same pid, as containers with host networking
# each running their job as pid 1: each in a PID namespace of its own (unshare), ranks 0 and 1
# of one communicator, one CCTUNE_WORKLOAD. Each must leave a file of its own holding its
# rank (the reliability review of 2026-11-27, N2: they shared workload.<host>.1.json and the
# second replaced the first).
#   profiler_pid_namespace_check.sh DRIVER SCRATCH
# Exit 77 (skipped) where this host does not allow PID namespaces.
set -eu
driver=$1
scratch=$2
unshare --pid --fork true 2>/dev/null || unshare --user --map-root-user --pid --fork true 2>/dev/null || {
  echo "SKIP: PID namespaces are not allowed here"
  exit 77
}
ns="unshare --pid --fork"
$ns true 2>/dev/null || ns="unshare --user --map-root-user --pid --fork"
rm -rf "$scratch" && mkdir -p "$scratch"
for r in 0 1; do
  CCTUNE_WORKLOAD="$scratch" CCTUNE_WORKLOAD_INTERVAL=0 $ns sh -c 'test $$ -eq 1 && exec "$0" rank "$1"' "$driver" "$r"
done
python3 - "$scratch" <<'EOF'
import glob, json, os, sys
files = sorted(glob.glob(os.path.join(sys.argv[1], "workload.*.json")))
assert len(files) == 2, f"expected a file per process, found {files}"
ranks = sorted(r for f in files for c in json.load(open(f))["communicators"] for r in c["ranks"])
sources = [json.load(open(f))["sources"] for f in files]
assert ranks == [0, 1], ranks
assert all(s[0].endswith(":1") for s in sources), sources  # nccl-profiler:<host>:<pid>, pid 1 in both
print("ok: two processes of pid 1 wrote", [os.path.basename(f) for f in files])
EOF
