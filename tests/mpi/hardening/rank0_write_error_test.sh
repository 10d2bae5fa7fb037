#!/usr/bin/env bash
# Issue 15 item 1: an error only rank 0 sees (its results.json cannot be written) must end
# every rank within a bound, with the error on stderr, not leave rank 1 in a collective.
set -uo pipefail
cctune=$1 out=$2
rm -rf "$out"; mkdir -p "$out/d3/results.json"
start=$(date +%s)
err=$(timeout 60 "${MPIRUN:-mpirun}" --allow-run-as-root --oversubscribe -np 2 "$cctune" sweep --backend mpi -b 8 -e 8 \
      --collectives allreduce --force -o "$out/d3" 2>&1 >/dev/null); rc=$?
took=$(( $(date +%s) - start ))
echo "rc=$rc after ${took}s; stderr: $err"
[[ $rc -eq 124 ]] && { echo "FAIL: the job hung (killed by timeout)"; exit 1; }
[[ $rc -eq 0 ]] && { echo "FAIL: exit 0 despite the write error"; exit 1; }
grep -q "cannot rename" <<<"$err" || { echo "FAIL: the write error is not on stderr"; exit 1; }
echo "rank0_write_error_test: ok"
