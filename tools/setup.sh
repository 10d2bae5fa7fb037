#!/usr/bin/env bash
# Installs what cctune needs from Debian/Ubuntu packages. Idempotent: installs only what
# is missing. CUDA and NCCL are not installed here: they come with GPU nodes (or the NGC
# container); without them cctune builds with the MPI backend only.
#   tools/setup.sh          build + run dependencies
#   tools/setup.sh --test   also what the test suite drives (Chromium, Slurm, iperf3, promtool, ...) and the
#                           soft-RoCE kernel for tools/rxe-vm.sh (tools/vm-kernel.sh)
set -euo pipefail

build_pkgs=(build-essential cmake ninja-build pkg-config git python3
  openmpi-bin libopenmpi-dev libhwloc-dev hwloc libibverbs-dev rdma-core ibverbs-utils
  libcli11-dev nlohmann-json3-dev libfmt-dev libgtest-dev googletest)
test_pkgs=(python3-jsonschema iproute2 iperf3 chromium slurm-wlm munge procps clang clang-format libclang-rt-14-dev libbenchmark-dev prometheus
  qemu-system-x86 busybox-static cpio perftest)
here=$(cd "$(dirname "$0")" && pwd)
test_mode=false
[[ "${1:-}" == "--test" ]] && test_mode=true

pkgs=("${build_pkgs[@]}")
$test_mode && pkgs+=("${test_pkgs[@]}")

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [[ ${#missing[@]} -eq 0 ]]; then
  echo "setup: all ${#pkgs[@]} packages already installed"
  if $test_mode; then "$here/vm-kernel.sh"; fi
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "setup: error: apt-get not found; install these packages with your system's package manager: ${missing[*]}" >&2
  exit 3
fi
sudo=()
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo=(sudo -n)
  else
    echo "setup: error: installing ${missing[*]} needs root; re-run as root or with passwordless sudo, or ask your admin to install them" >&2
    exit 3
  fi
fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -q
"${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
if $test_mode; then "${sudo[@]}" "$here/vm-kernel.sh"; fi
