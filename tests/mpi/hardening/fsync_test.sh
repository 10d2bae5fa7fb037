#!/usr/bin/env bash
# Issue 15 item 12: results.json is fsynced before the rename replaces the old file, and the
# directory after it. strace shows the order of the calls a real sweep makes.
set -uo pipefail
cctune=$1 out=$2
command -v strace >/dev/null || { echo "SKIP: strace is not installed"; exit 0; }
rm -rf "$out"; mkdir -p "$out"
strace -f -qq -e trace=fsync,rename,openat -o "$out/trace" "$cctune" sweep --backend mpi -b 8 -e 8 --collectives allreduce \
  -o "$out/run" --no-tune >/dev/null 2>&1 || { echo "FAIL: the sweep failed"; exit 1; }
grep -E 'rename\(.*results\.json' "$out/trace" | head -1
python3 - "$out/trace" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
renames = [i for i, l in enumerate(lines) if re.search(r'rename\(".*\.results\.json\.tmp\.\w+", ".*/results\.json"\) = 0', l)]
if not renames:
    sys.exit("FAIL: no rename onto results.json seen")
for i in renames:
    before = [l for l in lines[max(0, i - 3):i] if 'fsync(' in l and '= 0' in l]
    after = [l for l in lines[i + 1:i + 4] if 'fsync(' in l]
    if not before or not after:
        sys.exit("FAIL: rename at trace line %d lacks an fsync before (file) or after (directory)" % i)
print("fsync_test: ok (%d renames, each between fsyncs)" % len(renames))
PY
