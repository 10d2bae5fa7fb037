#!/usr/bin/env bash
# all_collectives_test.sh CCTUNE NP OUTDIR SCHEMA [sweep args...]: `--collectives all` under
# mpirun with the data check on: all nine collectives measured, 0 wrong elements, algbw and
# busbw from nccl-tests' formulas, `root` on exactly the rooted collectives' points. Extra
# arguments (e.g. --root all) go to the sweep; ROOTS (default 0) lists the roots each rooted
# collective must show, comma-separated.
set -euo pipefail
cctune=$1 np=$2 out=$3 schema=$4
shift 4
rm -rf "$out"; mkdir -p "$(dirname "$out")"
"${MPIRUN:-mpirun}" --allow-run-as-root --oversubscribe -np "$np" "$cctune" sweep --backend mpi --collectives all -c 1 \
  --max-time 0.05 --min-iters 5 -o "$out" "$@" >"$out.table.txt"
all=allreduce,allgather,reducescatter,broadcast,reduce,alltoall,sendrecv,gather,scatter
python3 "$(dirname "$0")/check_results.py" "$out/results.json" "$schema" --nranks "$np" \
  --collectives "$all" --status complete --check-wrong --min-points 9 --roots "${ROOTS:-0}"
# The table: one section per collective and root, the root named in its context line.
sections=$(grep -c '^# [a-z]*  backend mpi, ' "$out.table.txt" || true)
rooted=$(grep -cE '^# (broadcast|reduce|gather|scatter)  backend mpi, .*, root [0-9]+$' "$out.table.txt" || true)
IFS=, read -ra roots <<<"${ROOTS:-0}"
want_rooted=$((4 * ${#roots[@]}))
if [[ $sections -ne $((5 + want_rooted)) || $rooted -ne $want_rooted ]]; then
  echo "FAIL: $sections table sections ($rooted naming a root), want $((5 + want_rooted)) ($want_rooted)"; cat "$out.table.txt"; exit 1
fi
echo "all_collectives_test: OK"
