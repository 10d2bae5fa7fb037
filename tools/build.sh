#!/usr/bin/env bash
# Configures and builds cctune in build/ (CMake preset "default": the NCCL backend is built
# when CUDA and NCCL are found, e.g. in /usr/local/cuda). CCTUNE_WERROR=ON (as CI sets it)
# turns compiler warnings into errors.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset default -DCCTUNE_WERROR="${CCTUNE_WERROR:-OFF}" >/dev/null
cmake --build --preset default -j "$(nproc)"
