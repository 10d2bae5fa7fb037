#!/usr/bin/env bash
# Copies (stripped) what the GPU tests run into a small folder with the build tree's
# layout, so it can travel to a GPU host that has no compiler set-up for this project:
#   tools/gpu-bundle.sh BUILD_DIR DEST_DIR
# then on the GPU host: tests/gpu/run_gpu_tests.sh DEST_DIR
set -euo pipefail
build=${1:?usage: tools/gpu-bundle.sh BUILD_DIR DEST_DIR}
dest=${2:?usage: tools/gpu-bundle.sh BUILD_DIR DEST_DIR}
rm -rf "$dest"
# cctune-test: the lifecycle fault scenarios of runtime_gpu_check.sh run the test build.
for f in cctune cctune-test libcctune-nccl.so lib/libnccl-tuner-cctune.so tests/gpu/standalone_allreduce tests/gpu/dmabuf_check \
         cctune-ref-collectives bench/mpi_allreduce_loop bench/profiler_events_bench \
         bench/libcctune-profiler-floor.so; do
  if [[ -e $build/$f ]]; then
    mkdir -p "$dest/$(dirname "$f")"
    cp "$build/$f" "$dest/$f"
    strip --strip-debug "$dest/$f" 2>/dev/null || true
  else
    echo "gpu-bundle: warning: $build/$f not built" >&2
  fi
done
# Google Benchmark is a shared library only in Debian's package: the event bench takes its copy
# along (bench/profiler_overhead.sh runs it with lib/ on LD_LIBRARY_PATH).
if [[ -e $dest/bench/profiler_events_bench ]]; then
  lib=$(ldd "$build/bench/profiler_events_bench" | awk '/libbenchmark/ {print $3}')
  [[ -n $lib ]] && cp "$lib" "$dest/lib/"
fi
# The packaged tree (tools/package.sh BUILD_DIR) for tests/gpu/installed_tree_gpu_check.sh.
if compgen -G "$build/package/cctune-*.tar.gz" >/dev/null; then
  mkdir -p "$dest/package"
  cp "$build"/package/cctune-*.tar.gz "$dest/package/"
else
  echo "gpu-bundle: warning: no $build/package/cctune-*.tar.gz (run tools/package.sh $build first)" >&2
fi
du -sh "$dest"
