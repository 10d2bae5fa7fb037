#!/usr/bin/env bash
# Builds cctune's packages from a configured build folder: a .deb (installs under /usr) and a
# .tar.gz of the same relocatable tree (unpack anywhere, run bin/cctune).
#   tools/package.sh [BUILD_DIR] [OUT_DIR]
# BUILD_DIR defaults to build/ (configured by tools/build.sh or `cmake --preset default`);
# OUT_DIR defaults to BUILD_DIR/package. Prints the two package paths last.
set -euo pipefail
build=${1:-build}
[[ -f $build/CPackConfig.cmake ]] || {
  echo "package.sh: $build/CPackConfig.cmake not found. Fix: configure first (cmake --preset default) or pass the build folder" >&2
  exit 2
}
build=$(cd "$build" && pwd)
out=${2:-$build/package}
mkdir -p "$out"
out=$(cd "$out" && pwd)
command -v dpkg-deb >/dev/null || { echo "package.sh: dpkg-deb not found. Fix: apt-get install dpkg-dev" >&2; exit 3; }

# Only what the packages hold (cmake/CctuneInstall.cmake), not the test programs.
cmake --build "$build" --target cctune_installable
if [[ ! -f $build/libcctune-nccl.so ]]; then
  echo "package.sh: warning: no libcctune-nccl.so in $build (CUDA/NCCL not found at configure time): the packages run the MPI backend only" >&2
fi

rm -f "$out"/cctune-*.deb "$out"/cctune_*.deb "$out"/cctune-*.tar.gz
(cd "$out" && cpack --config "$build/CPackConfig.cmake" -G "DEB;TGZ" -B "$out" >"$out/cpack.log") || {
  cat "$out/cpack.log" >&2
  echo "package.sh: cpack failed (log above)" >&2
  exit 1
}
rm -rf "$out/_CPack_Packages"
ls -1 "$out"/*.deb "$out"/*.tar.gz
