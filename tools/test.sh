#!/usr/bin/env bash
# Installs everything the tests need, builds, and runs the whole test suite.
# GPU tests skip (with the reason) where there is no GPU; tests/gpu/run_gpu_tests.sh runs
# them on a GPU host.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh --test
# The test build treats compiler warnings as errors (CCTUNE_WERROR=OFF to relax it locally).
CCTUNE_WERROR=${CCTUNE_WERROR:-ON} tools/build.sh
ctest --preset default -j 2 --timeout 600
