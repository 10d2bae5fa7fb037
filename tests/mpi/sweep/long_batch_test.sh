#!/usr/bin/env bash
# A huge -n cannot trap the MPI sweep inside one point (issue 15, item 10):
#  1. --max-time bounds every batch: -n 1000000 (the most -n allows) --max-time 0.1 finishes in seconds.
#  2. A signal ends a batch that is still running: with --max-time 100 and 4 MiB a batch may last minutes,
#     yet SIGTERM (singleton) and SIGTERM to one rank (under mpirun) end the sweep in seconds,
#     with results.json marked interrupted.
set -euo pipefail
cctune=$1 out=$2
mpirun_cmd=("${MPIRUN:-mpirun}" --allow-run-as-root --oversubscribe -np 2)
rm -rf "$out" && mkdir -p "$out"
fail() { echo "long_batch_test: FAIL: $*"; exit 1; }
now() { date +%s.%N; }
since() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.2f}')" "$1" "$(now)"; }

t0=$(now)
timeout 120 "${mpirun_cmd[@]}" "$cctune" sweep --backend mpi -b 8 -e 64 -n 1000000 --max-time 0.1 \
  --collectives allreduce -o "$out/bounded" >"$out/bounded.log" 2>&1 || fail "bounded sweep failed or ran past 120 s (log: $out/bounded.log)"
echo "long_batch_test: -n 1000000 --max-time 0.1, 2 ranks, 8 points: $(since "$t0") s"

interrupted() {  # $1: results.json
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d['runs'][0]['status']=='interrupted' else 1)" "$1" \
    || fail "$1 is not marked interrupted"
}
# 4 MiB, so that -n 1000000 (the most -n allows) makes a batch last minutes, even on one rank.
long_args=(sweep --backend mpi -b 4M -e 4M -n 1000000 --max-time 100 --collectives allreduce)

"$cctune" "${long_args[@]}" -o "$out/single" >"$out/single.log" 2>&1 & pid=$!
sleep 3  # well inside the first point's long batches
t0=$(now); kill -TERM $pid
set +e; timeout 30 tail --pid=$pid -f /dev/null; wait $pid; rc=$?; set -e
[[ $rc -eq 143 ]] || fail "singleton exit code $rc after SIGTERM, expected 143"
echo "long_batch_test: singleton stopped $(since "$t0") s after SIGTERM (rc 143)"
interrupted "$out/single/results.json"

"${mpirun_cmd[@]}" "$cctune" "${long_args[@]}" -o "$out/mpi" >"$out/mpi.log" 2>&1 & pid=$!
sleep 4
rank_pid=$(pgrep -P $pid | head -1)
[[ -n $rank_pid ]] || fail "no rank process under mpirun"
t0=$(now); kill -TERM "$rank_pid"
set +e; timeout 30 tail --pid=$pid -f /dev/null; tail_rc=$?; wait $pid; rc=$?; set -e
[[ $tail_rc -eq 0 ]] || { kill -KILL $pid 2>/dev/null; fail "mpirun still running 30 s after SIGTERM to one rank"; }
[[ $rc -ne 0 ]] || fail "mpirun exited 0 after SIGTERM"
echo "long_batch_test: 2 ranks stopped $(since "$t0") s after SIGTERM to one rank (mpirun rc $rc)"
interrupted "$out/mpi/results.json"
echo "long_batch_test: OK"
