#!/usr/bin/env bash
# Buffer registration as a sweep axis (issue 35, item 2), on every GPU of one host:
#   tests/gpu/register_gpu_check.sh BUNDLE_DIR OUTPUT_DIR
# One `cctune sweep --backend nccl` (a singleton: one worker per GPU, all GPUs of the host) with two
# groups, NCCL's defaults (nvlink) and register-local (TORCH_NCCL_USE_TENSOR_REGISTER_ALLOCATOR_HOOK=1,
# the default space's group), allreduce and allgather 1 MiB to 64 MiB, data check on, under
# NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,REG. Checks:
#   - both groups ran and every point is ok with #wrong == 0;
#   - register-local's run records the key (its env and nccl_env), the default group's does not;
#   - every register-local worker says it registered its buffers, and NCCL's log shows the calls:
#     NCCL 2.28's ncclCommRegister prints "register comm %p buffer %p size %zi" (subsystem REG,
#     src/register/register.cc, v2.28.3-1), at least twice per worker (send and receive buffer);
#     no worker of the default group prints it.
# Printed, not checked: what NCCL's transports did with the registration (its REG lines "IPC
# register buffer", "failed to IPC register userbuff", "NET register userbuff"; NCCL 2.28 maps
# cudaMalloc'd buffers of peer GPUs only with NCCL_LEGACY_CUDA_REGISTER=1) and register-local's
# time against the default group's per collective and size.
# With one GPU the two workers share it (--test-shared-gpu 2: functional only, socket transport).
# Exits 0 with "SKIP: reason" without a GPU; 1 on a failure. NVLink multicast stays off.
set -u
NAME=register
. "$(dirname "$0")/sweep_check_prologue.sh"
NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,REG timeout 420 "$cctune" sweep --backend nccl "${workers[@]}" \
  --collectives allreduce,allgather -b 1M -e 64M -f 4 -c 1 -n 20 -w 5 --max-time 0.3 \
  --env-group register-local:TORCH_NCCL_USE_TENSOR_REGISTER_ALLOCATOR_HOOK=1 -o "$dir" > "$out/register_sweep.log" 2>&1
rc=$?
tail -n 5 "$out/register_sweep.log"
((rc == 0)) || { echo "FAIL: the sweep exited $rc (see $out/register_sweep.log)"; exit 1; }

python3 - "$dir" <<'PY'
import glob, json, re, statistics, sys
d = sys.argv[1]
KEY = "TORCH_NCCL_USE_TENSOR_REGISTER_ALLOCATOR_HOOK"
REGISTER = re.compile(r"NCCL INFO register comm 0x[0-9a-f]+ buffer 0x[0-9a-f]+ size [0-9]+")
res = json.load(open(d + "/results.json"))
problems = []
runs = {r.get("group"): r for r in res.get("runs", []) if r.get("backend") == "nccl"}
reg = runs.get("register-local")
base = [r for g, r in runs.items() if g != "register-local"]
if reg is None or len(base) != 1:
    sys.exit(f"FAIL: expected the default group and register-local, got groups {sorted(runs)}")
base = base[0]
times = {}
for run in (base, reg):
    g = run["group"]
    if run.get("status") != "ok": problems.append(f"group {g}: {run.get('status')} {run.get('reason')}")
    ok = 0
    for p in run.get("points", []):
        where = f"{g} {p.get('collective')} {p.get('size_bytes')} B {'in' if p.get('in_place') else 'out'}"
        if p.get("status") == "skipped": print(f"   skipped {where}: {p.get('reason')}"); continue
        if p.get("status") != "ok": problems.append(f"{where}: {p.get('status')} {p.get('reason')}"); continue
        ok += 1
        if p.get("wrong", -1) != 0: problems.append(f"{where}: wrong={p.get('wrong')}")
        times.setdefault((p["collective"], p["size_bytes"], bool(p.get("in_place"))), {})[g] = p.get("batch_us")
    colls = {p.get("collective") for p in run.get("points", []) if p.get("status") == "ok"}
    if colls != {"allreduce", "allgather"}: problems.append(f"group {g}: ok points of {sorted(colls)}, not allreduce and allgather")
    print(f"   group {g}: {ok} ok point(s), env {run.get('env')}, nccl_env[{KEY}] = {run.get('nccl_env', {}).get(KEY)}")
if reg.get("env", {}).get(KEY) != "1": problems.append(f"register-local's env lacks {KEY}=1: {reg.get('env')}")
if reg.get("nccl_env", {}).get(KEY) != "1": problems.append(f"register-local's nccl_env lacks {KEY}=1")
if KEY in base.get("nccl_env", {}) or KEY in base.get("env", {}): problems.append(f"the default group records {KEY}")

def logs(group):
    return sorted(glob.glob(f"{d}/workers/{group}.r*.log"))

reg_logs, base_logs = logs("register-local"), logs(base["group"])
if len(reg_logs) != reg.get("nranks") or not base_logs: problems.append(f"worker logs: {len(reg_logs)} of register-local for {reg.get('nranks')} ranks, {len(base_logs)} of {base['group']}")
transport = {"IPC register buffer": 0, "IPC reuse buffer": 0, "failed to IPC register": 0, "NET register userbuff": 0, "failed to NET register": 0}
for f in reg_logs:
    text = open(f, errors="replace").read()
    calls = len(REGISTER.findall(text))
    said = "buffers registered with ncclCommRegister" in text
    print(f"   {f.rsplit('/', 1)[-1]}: {calls} ncclCommRegister line(s) from NCCL, worker says registered: {said}")
    if calls < 2: problems.append(f"{f}: {calls} NCCL 'register comm ... buffer ... size' line(s), expected 2 or more")
    if not said: problems.append(f"{f}: no 'buffers registered with ncclCommRegister' line")
    for k in transport: transport[k] += text.count(k)
for f in base_logs:
    if REGISTER.search(open(f, errors="replace").read()): problems.append(f"{f}: the default group registered a buffer")
print("   NCCL's transports on register-local (lines over all its workers): " + ", ".join(f"{k}: {v}" for k, v in transport.items()))
for (c, size, inplace), t in sorted(times.items()):
    if base["group"] in t and "register-local" in t and t[base["group"]]:
        print(f"   {c:9} {size:>9} B {'in ' if inplace else 'out'}: default {t[base['group']]:9.1f} us, register-local {t['register-local']:9.1f} us, ratio {t['register-local'] / t[base['group']]:.3f}")
for p in problems[:20]: print("   problem: " + p)
print("FAIL: buffer registration check" if problems else "PASS: both groups #wrong == 0; register-local records the key and NCCL logged its ncclCommRegister calls")
sys.exit(1 if problems else 0)
PY
