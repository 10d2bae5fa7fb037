#!/usr/bin/env bash
# The part of relocated_tree_test.sh that runs inside the mount namespace, where the source
# and build trees are hidden. usage: relocated_tree_inside.sh PREFIX WORK MPIRUN SRC BUILD
set -uo pipefail
prefix=$1 work=$2 mpirun=$3 src=$4 build=$5
cctune=$prefix/bin/cctune
logs=$work/logs
mkdir -p "$logs"

fail() { echo "FAIL: $*"; for f in "$logs"/*; do echo "--- $f"; tail -n 15 "$f"; done; exit 1; }
pass() { echo "ok:   $*"; }

# The test is only worth something if the trees really are out of sight.
[[ -e $src/CMakeLists.txt ]] && fail "the source tree is still visible at $src"
[[ -e $build/CMakeCache.txt ]] && fail "the build tree is still visible at $build"
pass "source ($src) and build ($build) trees hidden"

"$cctune" --version >"$logs/version.txt" 2>&1 || fail "cctune --version exited $?"
head -1 "$logs/version.txt" | grep -q '^cctune [0-9]' || fail "--version's first line: $(head -1 "$logs/version.txt")"
grep -qx "plugin  $prefix/lib/libnccl-tuner-cctune.so" "$logs/version.txt" || fail "--version does not name the moved plugin"
grep -qx "spaces  $prefix/share/cctune/spaces" "$logs/version.txt" || fail "--version does not name the moved spaces"
grep -q '^MPI     Open MPI' "$logs/version.txt" || fail "--version names no MPI library"
if [[ -f $prefix/lib/libcctune-nccl.so ]]; then
  grep -qx "module  $prefix/lib/libcctune-nccl.so" "$logs/version.txt" || fail "--version does not name the moved worker module"
fi
pass "--version:"; sed 's/^/        /' "$logs/version.txt"

"$mpirun" --allow-run-as-root --oversubscribe -np 2 "$cctune" sweep --backend mpi -b 8 -e 1K -f 4 -n 5 -w 1 --max-time 0.05 \
  -o "$work/sweep" >"$logs/sweep.txt" 2>&1 || fail "mpirun -np 2 cctune sweep --backend mpi exited $?"
[[ -s $work/sweep/results.json ]] || fail "the MPI sweep wrote no results.json"
pass "mpirun -np 2 $cctune sweep --backend mpi -b 8 -e 1K"

"$cctune" sweep --space quick --dry-run >"$logs/dry_run.txt" 2>&1 || fail "sweep --space quick --dry-run exited $?"
grep -q '^# space quick' "$logs/dry_run.txt" || fail "the dry run printed no plan of the space 'quick'"
pass "sweep --space quick --dry-run: $(grep -c '^group ' "$logs/dry_run.txt") group line(s)"

# An unknown space: exit 2, and the places it names are the moved tree's (the outer script
# checks that no log names the source or build tree).
"$cctune" sweep --space no-such-space --dry-run >"$logs/unknown_space.txt" 2>&1
rc=$?
[[ $rc -eq 2 ]] && grep -q "looked in $prefix/share/cctune/spaces" "$logs/unknown_space.txt" ||
  fail "--space no-such-space: exit $rc, $(cat "$logs/unknown_space.txt")"
pass "--space no-such-space: exit 2, looked in the moved tree"

"$cctune" tune "$work/fixture.results.json" -o "$work/tune" >"$logs/tune.txt" 2>&1 || fail "cctune tune exited $?"
[[ -s $work/tune/profile.json && -s $work/tune/nccl.env ]] || fail "tune wrote no profile.json or nccl.env"
pass "tune: $(grep -c . "$work/tune/nccl.env") line(s) in nccl.env"

"$cctune" report "$work/sweep/results.json" -o "$work/report.html" >"$logs/report.txt" 2>&1 || fail "cctune report exited $?"
[[ -s $work/report.html ]] || fail "report wrote no report.html"
pass "report: $(wc -c <"$work/report.html") bytes"
