#!/bin/bash
# topology_gpu_check.sh BUILD_DIR: `cctune topo` on a live GPU node (run from the repo root).
# Checks: exit 0; JSON validates; GPU-GPU classes agree with `nvidia-smi topo -m`; a GPU
# with NVLink there (NV# in its row) has an NVLink limit > 0, one without has none.
# Saves the table and JSON to $OUT when set. Skips (exit 0) with the reason when there is
# no NVIDIA driver.
set -u
build=${1:?usage: tests/gpu/topology_gpu_check.sh BUILD_DIR}
cctune=$build/cctune
if ! command -v nvidia-smi > /dev/null 2>&1; then echo "SKIP: nvidia-smi not found (no NVIDIA driver)"; exit 0; fi
if ! nvidia-smi -L > /dev/null 2>&1; then echo "SKIP: nvidia-smi -L fails (NVML/driver not usable)"; exit 0; fi
[ -x "$cctune" ] || { echo "FAIL: $cctune not built"; exit 1; }
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"

"$cctune" topo > "$out/topo.txt" 2> "$out/topo.err" || { echo "FAIL: cctune topo exit $?"; cat "$out/topo.err"; exit 1; }
cat "$out/topo.txt"
"$cctune" topo --json > "$out/topology.json" || { echo "FAIL: cctune topo --json exit $?"; exit 1; }
nvidia-smi topo -m > "$out/nvidia-smi-topo-m.txt" 2>&1 || true

if python3 -c "import jsonschema" 2> /dev/null; then
  python3 tests/unit/topology/validate_topology.py configs/schema/topology.schema.json "$out/topology.json" \
    || { echo "FAIL: JSON does not validate"; exit 1; }
else
  echo "note: python3 jsonschema absent, schema check skipped"
fi

python3 - "$out/topology.json" "$out/nvidia-smi-topo-m.txt" <<'PY'
import json, re, sys
node = json.load(open(sys.argv[1]))["nodes"][0]
gpus, classes = node["gpus"], node["derived"]["matrix"]["classes"]
n = len(gpus)
if n == 0:
    sys.exit("FAIL: no GPU found: " + "; ".join(a["reason"] for a in node["absences"]))
# nvidia-smi topo -m rows: "GPU0	 X 	NV18	..."
smi = {}
for line in open(sys.argv[2]):
    m = re.match(r"^GPU(\d+)\s+(.*)$", line.strip())
    if m:
        smi[int(m.group(1))] = m.group(2).split()[:n]
if len(smi) != n:
    sys.exit(f"FAIL: nvidia-smi topo -m lists {len(smi)} GPUs, cctune {n}")
bad = []
for d in node["derived"]["gpus"]:
    i = d["index"]
    smi_nvlink = any(c.startswith("NV") for c in smi[i])
    print(f"GPU{i}: NVLink {d['nvlink_GBps']:.1f} GB/s, PCIe {d['pcie_GBps']:.1f} GB/s, nearest NICs {d['nearest_nics']}"
          f"; nvidia-smi: {'NVLink' if smi_nvlink else 'no NVLink'}")
    if (d["nvlink_GBps"] > 0) != smi_nvlink:
        bad.append((i, "nvlink_GBps", d["nvlink_GBps"]))
mismatch = [(i, j, classes[i][j], smi[i][j]) for i in smi for j in range(n) if i < n and j < len(smi[i]) and classes[i][j] != smi[i][j]]
if mismatch:
    print("FAIL: differs from nvidia-smi topo -m (i, j, cctune, nvidia-smi):", mismatch)
if bad:
    print("FAIL: NVLink limit disagrees with nvidia-smi (GPU, what, cctune):", bad)
sys.exit(1 if bad or mismatch else 0)
PY
rc=$?
[ $rc -eq 0 ] && echo "PASS: $(python3 -c "import json;print(len(json.load(open('$out/topology.json'))['nodes'][0]['gpus']))") GPU(s), classes and NVLink as nvidia-smi topo -m; saved in $out"
exit $rc
