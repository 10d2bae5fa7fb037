#!/usr/bin/env bash
# Configures and builds cctune in build/ (CMake preset "default": the NCCL backend is built
# when CUDA and NCCL are found, e.g. in /usr/local/cuda).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset default >/dev/null
cmake --build --preset default -j "$(nproc)"
