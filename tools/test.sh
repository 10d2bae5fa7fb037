#!/usr/bin/env bash
# Installs everything the tests need, builds, and runs the whole test suite.
# GPU tests skip (with the reason) where there is no GPU; tests/gpu/run_gpu_tests.sh runs
# them on a GPU host.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh --test
# The CMake preset "ci" (build/): the default build with compiler warnings as errors
# (CCTUNE_WERROR=OFF to relax it locally). It also configures and builds the fuzzers with clang
# in build/fuzz (the "fuzz" preset's settings), whose runs are among its tests.
cmake --preset ci -DCCTUNE_WERROR="${CCTUNE_WERROR:-ON}" >/dev/null
cmake --build --preset ci -j "$(nproc)"
ctest --preset ci -j 2 --timeout 600
