#!/usr/bin/env bash
# Communicator churn against the profiler half (the reliability review of 2026-11-27, N13):
# one long-lived communicator and N more created, given 20 calls and destroyed one after the
# other, with CCTUNE_WORKLOAD_INTERVAL=0. Until 2026-11-27 each destroy rewrote the whole file,
# so the destroy's time grew with the destroys before it (3000 cycles: 115 ms each, 169 s in
# all). Now a destroy while another communicator lives keeps its records in memory (bounded)
# and only the last communicator's destroy writes: the destroy's time must stay flat.
#   bench/profiler_churn.sh BUILD_DIR [N]      (N defaults to 3000)
# Env: PLUGIN (default BUILD_DIR/lib/libnccl-tuner-cctune.so), BASE_PLUGIN (another build of
#      the library, e.g. an older commit's, run first with the same N for a before/after),
#      OUT (where the workload files go; default a temporary folder).
# Builds bench/profiler_churn.cpp with the host's C++ compiler (no NCCL, no GPU needed).
# Exit: 0 when the last fifth's mean destroy time is within 3x the first fifth's plus 0.5 ms
# (flat), 1 otherwise, 2 on a usage error.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
build=${1:?usage: bench/profiler_churn.sh BUILD_DIR [N]}
n=${2:-3000}
plugin=${PLUGIN:-$build/lib/libnccl-tuner-cctune.so}
[ -f "$plugin" ] || { echo "profiler_churn: no $plugin; build the target nccl-tuner-cctune" >&2; exit 2; }
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
exe="$out/profiler_churn"
${CXX:-c++} -std=c++20 -O2 -I"$repo" -I"$repo/tests/unit/workload/profiler" "$here/profiler_churn.cpp" -o "$exe" -ldl

run() {  # LABEL SO
  local dir="$out/workload.$1"
  rm -rf "$dir" && mkdir -p "$dir"
  echo "== $1: $2"
  CCTUNE_WORKLOAD="$dir" CCTUNE_WORKLOAD_INTERVAL=0 "$exe" "$2" "$n" | tee "$out/$1.txt"
}

[ -n "${BASE_PLUGIN:-}" ] && run before "$BASE_PLUGIN"
run after "$plugin"
# Flat: the last fifth's mean destroy time against the first fifth's.
python3 - "$out/after.txt" <<'EOF'
import re, sys
means = [float(m) for m in re.findall(r"finalize mean +([0-9.]+) ms", open(sys.argv[1]).read())]
first, last = means[0], means[-1]
flat = last <= 3 * first + 0.5
print(f"destroy time, first fifth {first:.3f} ms, last fifth {last:.3f} ms: {'flat' if flat else 'GROWING'}")
sys.exit(0 if flat else 1)
EOF
