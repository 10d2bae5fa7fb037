#!/usr/bin/env bash
# Issue 15 item 2: 100 000 nested '[' in a results file (meta.settings, topology), a space
# file or a topology file give a one-line usage error (exit 2), never a crash.
set -uo pipefail
cctune=$1 out=$2
rm -rf "$out"; mkdir -p "$out"
failures=0
deep=$(python3 -c "print('['*100000 + ']'*100000)")
head='{"schema":"cctune.results/1","meta":{"settings":'
printf '%s%s}, "runs":[]}\n' "$head" "$deep" > "$out/settings.json"
printf '{"schema":"cctune.results/1","meta":{},"runs":[],"topology":%s}\n' "$deep" > "$out/topology_in_results.json"
printf '{"name":"deep","collectives":%s}\n' "$deep" > "$out/space.json"
printf '{"nodes":%s}\n' "$deep" > "$out/topo.json"
mkdir -p "$out/resume"; cp "$out/settings.json" "$out/resume/results.json"
check() {  # check NAME -- ARGS...
  local name=$1; shift 2
  local err rc
  err=$(timeout 60 "$@" 2>&1 >/dev/null); rc=$?
  if [[ $rc -ne 2 ]] || ! grep -q "deeper than" <<<"$err" || [[ $(grep -c 'cctune: error:' <<<"$err") -ne 1 ]]; then
    echo "FAIL $name: rc=$rc (want 2), stderr: ${err:0:300}"; failures=$((failures+1))
  else
    echo "ok   $name: $err"
  fi
}
check report-settings -- "$cctune" report "$out/settings.json" -o "$out/r1.html"
check report-topology -- "$cctune" report "$out/topology_in_results.json" -o "$out/r2.html"
check compare -- "$cctune" compare "$out/settings.json" "$out/topology_in_results.json"
check tune -- "$cctune" tune "$out/settings.json" -o "$out/tuned"
check resume -- "$cctune" sweep --backend mpi -b 8 -e 8 --resume "$out/resume"
check topo-from -- "$cctune" topo --from "$out/topo.json"
check space -- "$cctune" sweep --space "$out/space.json" --dry-run --gpus 1
[[ $failures -eq 0 ]] && echo "deep_json_test: all ok" || { echo "deep_json_test: $failures failure(s)"; exit 1; }
