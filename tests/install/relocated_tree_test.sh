#!/usr/bin/env bash
# An installed cctune works from wherever its tree is moved, with neither the source nor the
# build tree present: `cmake --install` into a temporary prefix, move the prefix, then (in a
# private mount namespace where empty tmpfs mounts hide the source and build trees) run the
# moved bin/cctune for --version, an MPI sweep under mpirun, a `--space quick` dry run, `tune`
# on a fixture and `report`. The outputs are checked afterwards, outside the namespace: the
# moved paths must appear (nccl.env's NCCL_TUNER_PLUGIN), the source and build paths never.
#
# usage: relocated_tree_test.sh BUILD_DIR SOURCE_DIR MPIRUN
# Exit 77 (skipped) where no mount namespace can be made (unshare -m needs CAP_SYS_ADMIN).
set -uo pipefail
build=$(cd "${1:?usage: relocated_tree_test.sh BUILD_DIR SOURCE_DIR MPIRUN}" && pwd)
src=$(cd "${2:?source dir}" && pwd)
mpirun=${3:?mpirun}
here=$(cd "$(dirname "$0")" && pwd)

fail() { echo "FAIL: $*"; exit 1; }
pass() { echo "ok:   $*"; }

unshare -m --propagation private true 2>/dev/null ||
  { echo "SKIP: cannot make a mount namespace here (unshare -m: $(unshare -m true 2>&1 | head -1))"; exit 77; }

# Outside the source and build trees, since both get hidden.
work=$(mktemp -d /tmp/cctune-relocated.XXXXXX)
trap 'rm -rf "$work"' EXIT
case $work/ in "$src"/* | "$build"/*) fail "temporary folder $work lies inside the source or build tree" ;; esac

cmake --install "$build" --prefix "$work/staged" >"$work/install.log" 2>&1 || { cat "$work/install.log"; fail "cmake --install"; }
for f in bin/cctune lib/libnccl-tuner-cctune.so share/cctune/spaces/quick.json share/cctune/schema/results.schema.json \
         share/cctune/cctune.sbatch share/doc/cctune/README.md share/doc/cctune/LICENSE; do
  [[ -e $work/staged/$f ]] || fail "the installed tree has no $f"
done
[[ -f $build/libcctune-nccl.so && ! -f $work/staged/lib/libcctune-nccl.so ]] && fail "the worker module was built but not installed"
pass "cmake --install: $(cd "$work/staged" && find . -type f | wc -l) files"

# Moved to another path of another depth: nothing may remember where it was installed.
mkdir -p "$work/elsewhere/opt"
mv "$work/staged" "$work/elsewhere/opt/cctune"
prefix=$work/elsewhere/opt/cctune
fixture=$(ls "$src"/tests/fixtures/tuning/*.results.json | head -1)
cp "$fixture" "$work/fixture.results.json"
cp "$here/relocated_tree_inside.sh" "$work/inside.sh"

# Hide the source tree and the build tree (when it is not inside the source tree).
hide="mount -t tmpfs cctune-hidden '$src'"
case $build/ in "$src"/*) ;; *) hide+=" && mount -t tmpfs cctune-hidden '$build'" ;; esac
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 CCTUNE_SPACES_DIR= CCTUNE_NCCL_MODULE= \
  unshare -m --propagation private bash -c "$hide && cd '$work' && exec bash '$work/inside.sh' '$prefix' '$work' '$mpirun' '$src' '$build'"
rc=$?
[[ $rc -eq 0 ]] || fail "the run inside the namespace failed (exit $rc)"

# Checks outside: the outputs name the moved tree and never the source or build tree.
grep -qx "NCCL_TUNER_PLUGIN=$prefix/lib/libnccl-tuner-cctune.so" "$work/tune/nccl.env" ||
  fail "nccl.env does not name the moved plugin: $(grep TUNER_PLUGIN "$work/tune/nccl.env")"
pass "nccl.env: NCCL_TUNER_PLUGIN=$prefix/lib/libnccl-tuner-cctune.so"
python3 "$src/tests/mpi/sweep/check_results.py" "$work/sweep/results.json" "$src/configs/schema/results.schema.json" \
  --nranks 2 --min-points 4 || fail "the moved cctune's results.json"
leaks=$(grep -rlF -e "$src" -e "$build" "$work/sweep" "$work/tune" "$work/report.html" "$work/logs" 2>/dev/null)
[[ -z $leaks ]] || fail "outputs name the source or build tree: $leaks ($(grep -rhoF -e "$src" -e "$build" $leaks | sort -u | head -3))"
pass "no output names $src or $build"
echo "relocated_tree_test: all checks passed"
