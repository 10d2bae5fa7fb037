#!/usr/bin/env bash
# diagnose_metrics_test.sh CCTUNE MPIEXEC OUTDIR: `cctune diagnose --prometheus FILE` on one node
# of 4 GPUs run by the selftest stand-in workers (no GPU needed), one of them launching every
# operation late (as tests/mpi/diagnose/straggler_test.sh): promtool accepts the file, and it
# names the same suspect as diagnosis.json, with every GPU's and the node's figures.
set -euo pipefail
cctune=$1 mpiexec=$2 out=$3
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "diagnose_metrics_test: FAIL: $*"; exit 1; }
rm -rf "$out"; mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export CCTUNE_NCCL_MODULE="$(dirname "$cctune")/tests/libcctune-selftest.so" CCTUNE_SELFTEST_GPUS=4

set +e
CCTUNE_TEST_SLOW_RANK=2:3000 timeout 120 "$mpiexec" --oversubscribe -np 1 "$cctune" diagnose --backend nccl --latency-size 8 \
  --bandwidth-size 1M --max-time 0.5 -o "$out/diag" --prometheus "$out/diag.prom" > "$out/diag.out" 2> "$out/diag.err"
rc=$?
set -e
cat "$out/diag.out"; sed 's/^/stderr: /' "$out/diag.err" | head -20
[[ $rc -eq 5 ]] || fail "diagnose exited $rc, expected 5 (a suspect)"
grep -q "^# metrics: $out/diag.prom" "$out/diag.out" || fail "no '# metrics:' line in the output"
"$here/../../support/promtool_check.sh" "$out/diag.prom" || exit $?

python3 - "$out/diag/diagnosis.json" "$out/diag.prom" <<'PY'
import json, re, sys
doc = json.load(open(sys.argv[1]))
text = open(sys.argv[2], encoding="utf-8").read()
n = len(doc["suspects"])
assert re.search(rf"^cctune_diagnose_suspects {n}$", text, re.M), f"suspect count {n} not in the file"
for s in doc["suspects"]:
    pat = rf'^cctune_diagnose_suspect_\w+\{{kind="{s["kind"]}",host="{re.escape(s["host"])}",gpu="{s["gpu"]}",stat="observed"\}} '
    assert re.search(pat, text, re.M), f"suspect {s['kind']} {s['host']} GPU {s['gpu']} not in the file"
gpus = re.findall(r"^cctune_diagnose_gpu_time_seconds\{", text, re.M)
assert len(gpus) == len(doc["figures"]["gpus"]) == 4, f"{len(gpus)} GPU series"
assert re.search(r"^cctune_diagnose_node_busbw_bytes_per_second\{host=", text, re.M), "no node busbw"
print(f"diagnose metrics: {n} suspect(s), {len(gpus)} GPUs: OK")
PY

set +e
"$cctune" diagnose --dry-run --nodes 2 --prometheus "$out/diag.txt" > /dev/null 2> "$out/bad.err"
rc=$?
set -e
[[ $rc -eq 2 ]] || fail "--prometheus diag.txt: exit $rc, expected 2"
grep -q "diag.txt.*\.prom" "$out/bad.err" || fail "the error does not name the file: $(cat "$out/bad.err")"
echo "diagnose_metrics_test: OK"
