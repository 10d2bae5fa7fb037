#!/usr/bin/env bash
# Host time per recorded call of two or more builds of libnccl-tuner-cctune.so, side by side:
# bench/profiler_events_bench run against each library in turn, ROUNDS interleaved rounds
# (library order rotated each round), then per benchmark the median over rounds of each
# library's CPU time and its ratio to the first library's.
#   bench/profiler_events_compare.sh BENCH_BINARY LIB_BEFORE LIB_AFTER [LIB...]
# Env: ROUNDS (default 3), FILTER (default: the launching thread's benchmarks), MIN_TIME (0.5).
# The driver is the bench binary's (NCCL 2.28's events as the library's mask asks for them),
# so each library gets the events NCCL would send it.
set -euo pipefail
bench=${1:?usage: profiler_events_compare.sh BENCH_BINARY LIB_BEFORE LIB_AFTER [LIB...]}
shift
[[ $# -ge 2 ]] || { echo "usage: profiler_events_compare.sh BENCH_BINARY LIB_BEFORE LIB_AFTER [LIB...]" >&2; exit 2; }
libs=("$@")
for l in "${libs[@]}"; do [[ -f $l ]] || { echo "FAIL: $l is not a file" >&2; exit 2; }; done
rounds=${ROUNDS:-3}
filter=${FILTER:-LaunchThread|Followed|Cold}
out=$(mktemp -d /tmp/cctune-events-compare.XXXXXX)
n=${#libs[@]}
for r in $(seq 1 "$rounds"); do
  for k in $(seq 0 $((n - 1))); do
    i=$(( (k + r) % n ))
    CCTUNE_PLUGIN_SO=${libs[$i]} "$bench" --benchmark_filter="$filter" --benchmark_min_time="${MIN_TIME:-0.5}" \
      --benchmark_format=json >"$out/lib$i.round$r.json" 2>/dev/null
  done
done
python3 - "$out" "$rounds" "${libs[@]}" <<'PY'
import json, statistics, sys
out, rounds, libs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
times = {}
for i in range(len(libs)):
    for r in range(1, rounds + 1):
        for b in json.load(open(f"{out}/lib{i}.round{r}.json"))["benchmarks"]:
            # Cold benchmarks time the call alone by hand (manual time); CPU time would be their cache walk's.
            t = b["real_time"] if b["name"].endswith("/manual_time") else b["cpu_time"]
            times.setdefault(b["name"], {}).setdefault(i, []).append(t)
print(f"median ns over {rounds} interleaved rounds (CPU time; wall time of the call alone for manual_time); ratio to {libs[0]}")
for name, per in sorted(times.items()):
    base = statistics.median(per[0])
    cells = [f"{statistics.median(per[i]):8.1f} ns ({statistics.median(per[i]) / base:.2f}x)" for i in sorted(per)]
    print(f"  {name:<30}" + "  ".join(cells))
for i, l in enumerate(libs):
    print(f"  lib {i}: {l}")
PY
rm -rf "$out"
