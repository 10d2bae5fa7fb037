#!/usr/bin/env bash
# The installed tree on a GPU host: unpack the .tar.gz that tools/package.sh made into a
# temporary prefix and, with nothing but that tree, run an NCCL sweep on one GPU, tune it
# (nccl.env must name the unpacked plugin), and load the unpacked libnccl-tuner-cctune.so in
# NCCL through `cctune verify` (its log must show the plugin reading the profile). With 2 or
# more GPUs, plugin_gpu_check.sh also runs against the unpacked plugin.
#
# Usage: tests/gpu/installed_tree_gpu_check.sh BUILD_DIR [OUTPUT_DIR] [TARBALL]
#   TARBALL defaults to BUILD_DIR/package/cctune-*.tar.gz (tools/package.sh BUILD_DIR).
#   Exits 0 with "SKIP: reason" without a GPU or without the tarball; 1 when a check fails.
set -u
export NCCL_NVLS_ENABLE=0  # NVLink multicast stays off on shared GPU machines
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
build=${1:?usage: installed_tree_gpu_check.sh BUILD_DIR [OUTPUT_DIR] [TARBALL]}
out=${2:-${OUT:-$(mktemp -d /tmp/cctune-installed-gpu.XXXXXX)}}
tarball=${3:-$(ls "$build"/package/cctune-*.tar.gz 2>/dev/null | head -1)}
here=$(cd "$(dirname "$0")" && pwd)
failures=0

skip() { echo "SKIP: $*"; exit 0; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
pass() { echo "PASS: $*"; }

command -v nvidia-smi >/dev/null 2>&1 || skip "nvidia-smi not found (no NVIDIA driver on this machine)"
ngpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
[ "$ngpus" -ge 1 ] || skip "nvidia-smi finds no GPU"
[ -n "$tarball" ] && [ -f "$tarball" ] || skip "no package tarball (${3:-$build/package/cctune-*.tar.gz}); make it with tools/package.sh $build"
command -v python3 >/dev/null || { echo "FAIL: python3 is needed to read results.json"; exit 1; }

mkdir -p "$out"
out=$(cd "$out" && pwd)
root=$(mktemp -d /tmp/cctune-prefix.XXXXXX)
trap 'rm -rf "$root"' EXIT
tar -xzf "$tarball" -C "$root" || { echo "FAIL: cannot unpack $tarball"; exit 1; }
prefix=$(ls -d "$root"/cctune-* | head -1)
cctune=$prefix/bin/cctune
[ -x "$cctune" ] || { echo "FAIL: $tarball holds no bin/cctune"; exit 1; }
[ -f "$prefix/lib/libcctune-nccl.so" ] || { echo "FAIL: $tarball holds no lib/libcctune-nccl.so (packaged without CUDA/NCCL)"; exit 1; }
echo "== installed tree: $prefix (from $tarball), $ngpus GPU(s)"

echo "== cctune --version"
"$cctune" --version | tee "$out/version.txt"
grep -qE '^NCCL +[0-9]+\.[0-9]+\.[0-9]+' "$out/version.txt" && pass "the unpacked worker module loads NCCL $(awk '/^NCCL/ {print $2}' "$out/version.txt")" ||
  fail "--version finds no NCCL: $(grep '^NCCL' "$out/version.txt")"
grep -qx "module  $prefix/lib/libcctune-nccl.so" "$out/version.txt" || fail "--version does not name the unpacked module"
grep -qx "plugin  $prefix/lib/libnccl-tuner-cctune.so" "$out/version.txt" || fail "--version does not name the unpacked plugin"

echo "== NCCL sweep on one GPU"
rm -rf "$out/sweep"
CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-0} timeout 600 "$cctune" sweep --backend nccl --configs auto,ring/simple,ring/ll \
  -b 1K -e 1M -f 4 -o "$out/sweep" >"$out/sweep.log" 2>&1
rc=$?
tail -n 5 "$out/sweep.log"
if [ $rc -ne 0 ]; then
  fail "sweep --backend nccl exited $rc"
else
  summary=$(python3 - "$out/sweep/results.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
runs = [x for x in r["runs"] if x["backend"] == "nccl"]
ok = [p for x in runs for p in x["points"] if p["status"] == "ok" and p.get("batch_us", 0) > 0]
bad = [x["group"] + ": " + x.get("reason", "") for x in runs if x["status"] != "ok"]
print(f"{len(ok)} {r['meta']['versions'].get('nccl', '?')} {'; '.join(bad)}")
PY
)
  read -r npoints nccl_version bad <<<"$summary"
  [ "${npoints:-0}" -ge 4 ] && [ -z "$bad" ] && pass "NCCL sweep from the unpacked tree: $npoints points measured, NCCL $nccl_version" ||
    fail "NCCL sweep: ${npoints:-0} points measured; failed groups: ${bad:-none}"
fi

echo "== tune"
"$cctune" tune "$out/sweep/results.json" -o "$out/sweep" >"$out/tune.log" 2>&1 || fail "tune exited $?"
grep -qx "NCCL_TUNER_PLUGIN=$prefix/lib/libnccl-tuner-cctune.so" "$out/sweep/nccl.env" &&
  pass "nccl.env names the unpacked plugin $prefix/lib/libnccl-tuner-cctune.so" ||
  fail "nccl.env: $(grep TUNER_PLUGIN "$out/sweep/nccl.env" 2>/dev/null || echo 'no NCCL_TUNER_PLUGIN line')"

echo "== the unpacked plugin inside NCCL (cctune verify)"
# verify's profile side runs NCCL with NCCL_TUNER_PLUGIN=<the plugin beside cctune>; NCCL calls
# the plugin's init for every communicator (one rank too), which logs the profile it read.
profile=$out/sweep/profile.json
if [ ! -s "$profile" ]; then  # tune failed above (already counted): the plugin is still worth checking
  version=$(awk '/^NCCL/ {print $2}' "$out/version.txt")
  profile=$out/fixture_profile.json
  sed -E "s/\"nccl_version\": \"[0-9.]+\"/\"nccl_version\": \"$version\"/" "$here/../fixtures/tuner/gpu_check_profile.json" >"$profile"
  echo "(no tuned profile: using tests/fixtures/tuner/gpu_check_profile.json for NCCL $version)"
fi
rm -rf "$out/verify"
CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-0} NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,TUNING timeout 600 \
  "$cctune" verify --profile "$profile" -b 1K -e 1M -f 4 --rounds 2 -o "$out/verify" >"$out/verify.log" 2>&1
rc=$?
tail -n 5 "$out/verify.log"
[ $rc -eq 0 ] || [ $rc -eq 4 ] || [ $rc -eq 6 ] || fail "verify exited $rc"  # 6: 2 rounds decide nothing
if grep -rqs "cctune tuner: profile" "$out/verify"; then
  pass "NCCL loaded the unpacked plugin: $(grep -rhos 'cctune tuner: profile.*' "$out/verify" | head -1)"
else
  fail "no 'cctune tuner: profile' line in the logs under $out/verify: NCCL did not load $prefix/lib/libnccl-tuner-cctune.so"
  grep -rhs -E "TUNER|cctune tuner" "$out/verify" | head -5
fi

if [ "$ngpus" -ge 2 ] && [ -x "$build/tests/gpu/standalone_allreduce" ]; then
  echo "== plugin_gpu_check.sh with the unpacked plugin"
  shim=$root/shim
  mkdir -p "$shim/tests/gpu"
  ln -s "$prefix/lib" "$shim/lib"
  ln -s "$build/tests/gpu/standalone_allreduce" "$shim/tests/gpu/standalone_allreduce"
  "$here/plugin_gpu_check.sh" "$shim" && pass "plugin_gpu_check.sh with $prefix/lib/libnccl-tuner-cctune.so" ||
    fail "plugin_gpu_check.sh with the unpacked plugin"
fi

if [ "$failures" -gt 0 ]; then
  echo "installed_tree_gpu_check: $failures check(s) failed (logs in $out)"
  exit 1
fi
echo "installed_tree_gpu_check: all checks passed"
