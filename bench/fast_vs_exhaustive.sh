#!/usr/bin/env bash
# The fast search strategy (successive halving) against the exhaustive reference on one
# search space, same machine, back to back; then the halving profile verified A/B against
# NCCL's default.
#   bench/fast_vs_exhaustive.sh BUILD_DIR [OUTPUT_DIR]
# Env: SPACE (default: default), SWEEP_ARGS (extra sweep flags, e.g. "--max-bytes 64M"),
#      VERIFY_ARGS (default: the space's sizes), SKIP_VERIFY=1.
# Prints compare_strategies.py's table (halving's choice timed by the exhaustive run, per
# size; both durations and their ratio) and verify's table. Exits 0 with "SKIP: reason"
# without a GPU.
set -uo pipefail
export NCCL_NVLS_ENABLE=0
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:?usage: fast_vs_exhaustive.sh BUILD_DIR [OUTPUT_DIR]}" && pwd)
out=${2:-${OUT:-$(mktemp -d /tmp/cctune-strategies.XXXXXX)}}/fast_vs_exhaustive
mkdir -p "$out"
space=${SPACE:-default}
command -v nvidia-smi >/dev/null 2>&1 || { echo "SKIP: nvidia-smi not found"; exit 0; }
[ "$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')" -ge 2 ] || { echo "SKIP: fewer than 2 GPUs"; exit 0; }

run_sweep() {  # run_sweep STRATEGY: times the whole command, the user's view of the duration
  local t0=$(date +%s%N)
  # shellcheck disable=SC2086
  "$build/cctune" sweep --backend nccl --space "$space" --strategy "$1" ${SWEEP_ARGS:-} -o "$out/$1" \
    > "$out/$1.stdout" 2> "$out/$1.stderr"
  local rc=$?
  echo "sweep $1: exit $rc, $(( ($(date +%s%N) - t0) / 1000000 )) ms wall" | tee -a "$out/durations.txt"
  return $rc
}
: > "$out/durations.txt"
run_sweep halving || { tail -5 "$out/halving.stderr"; exit 1; }
run_sweep exhaustive || { tail -5 "$out/exhaustive.stderr"; exit 1; }
python3 "$here/compare_strategies.py" "$out/exhaustive/results.json" "$out/halving/results.json" | tee "$out/compare.txt"
compare_rc=${PIPESTATUS[0]}
for s in halving exhaustive; do
  echo "== $s profile (group chosen, rules)"
  python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); print("env", p.get("env")); [print(r) for r in p.get("rules", [])]' \
    "$out/$s/profile.json" 2>&1 | head -40
done
if [ "${SKIP_VERIFY:-0}" != 1 ]; then
  echo "== verify the halving profile against NCCL's default"
  # shellcheck disable=SC2086
  "$build/cctune" verify --profile "$out/halving/profile.json" ${VERIFY_ARGS:--b 8 -e 512M -f 4} -o "$out/verify" 2>&1 | tail -60
  echo "verify exit: ${PIPESTATUS[0]}"
fi
exit "$compare_rc"
