#!/usr/bin/env bash
# Installs everything the tests need, builds, and runs the whole test suite.
# GPU tests skip (with the reason) where there is no GPU; tests/gpu/run_gpu_tests.sh runs
# them on a GPU host.
#
#   tools/test.sh [--under-load] [ctest arguments...]
#
# --under-load: the suite runs beside two busy loops (as CI does on a 2-core host that still
# builds or tests something else); they are started here and always killed on exit.
# Further arguments go to ctest (e.g. -R 'lifecycle|sigterm').
set -euo pipefail
cd "$(dirname "$0")/.."
under_load=0
if [[ "${1:-}" == "--under-load" ]]; then
  under_load=1
  shift
fi
tools/setup.sh --test
# The CMake preset "ci" (build/): the default build with compiler warnings as errors
# (CCTUNE_WERROR=OFF to relax it locally). It also configures and builds the fuzzers with clang
# in build/fuzz (the "fuzz" preset's settings), whose runs are among its tests.
cmake --preset ci -DCCTUNE_WERROR="${CCTUNE_WERROR:-ON}" >/dev/null
cmake --build --preset ci -j "$(nproc)"
load_pids=()
stop_load() {
  for pid in "${load_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${load_pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  load_pids=()
}
if ((under_load)); then
  trap stop_load EXIT
  trap 'stop_load; exit 130' INT
  trap 'stop_load; exit 143' TERM
  for _ in 1 2; do
    (exec yes >/dev/null) &
    load_pids+=($!)
  done
  echo "test.sh: running beside two busy loops (pids ${load_pids[*]})"
fi
ctest --preset ci -j 2 --timeout 600 "$@"
