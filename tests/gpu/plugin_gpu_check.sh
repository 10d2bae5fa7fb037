#!/usr/bin/env bash
# Shows on a GPU machine that libnccl-tuner-cctune.so steers a program that knows nothing of
# cctune (standalone_allreduce): with NCCL_TUNER_PLUGIN and CCTUNE_PROFILE set, NCCL's TUNING
# lines must show the profile's algorithm, protocol and at most its channel count per size;
# a profile of another NCCL release must give exactly one warning and leave NCCL alone; a
# profile whose allreduce rules were measured where NCCL offered ring only must leave allreduce
# to NCCL here (it offers more) with one warning per process, and still steer allgather.
#
# Usage: tests/gpu/plugin_gpu_check.sh BUILD_DIR
#   BUILD_DIR configured with -DCCTUNE_WITH_CUDA=ON; build targets standalone_allreduce and
#   nccl-tuner-cctune first. Exits 0 with "SKIP: reason" without a GPU, 1 when a check fails.
# With 2+ GPUs one process drives 2, 4 or 8 of them (1 NCCL node). With one GPU, 2 processes
# share it, each its own NCCL host (standalone_allreduce --shared-gpu 2: NCCL_HOSTID per
# process, socket transport), so NCCL sees 2 ranks on 2 nodes and the profile's rules are the
# shared-GPU fixture's (LL128 is not offered over sockets).
set -u
build=${1:?usage: plugin_gpu_check.sh BUILD_DIR}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
prog=$build/tests/gpu/standalone_allreduce
plugin=$build/lib/libnccl-tuner-cctune.so
fixture=$repo/tests/fixtures/tuner/gpu_check_profile.json
failures=0
export NCCL_NVLS_ENABLE=0  # never NVLS/multicast in tests

skip() { echo "SKIP: $*"; exit 0; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
pass() { echo "ok:   $*"; }

command -v nvidia-smi >/dev/null 2>&1 || skip "nvidia-smi not found (no NVIDIA driver on this machine)"
ngpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
[ "$ngpus" -ge 1 ] || skip "no GPU found"
[ -x "$prog" ] || { echo "FAIL: $prog is not built (configure with -DCCTUNE_WITH_CUDA=ON, build standalone_allreduce)"; exit 1; }
[ -f "$plugin" ] || { echo "FAIL: $plugin is not built (build nccl-tuner-cctune)"; exit 1; }

n=2
[ "$ngpus" -ge 4 ] && n=4
[ "$ngpus" -ge 8 ] && n=8
if [ "$ngpus" -ge 2 ]; then
  mode=(--ngpus "$n"); nnodes=1; processes=1
else  # one GPU: two processes share it as two NCCL hosts
  mode=(--shared-gpu "$n"); nnodes=$n; processes=$n
  fixture=$repo/tests/fixtures/tuner/gpu_check_profile_shared_gpu.json
fi
version=$("$prog" --version) || { echo "FAIL: $prog --version"; exit 1; }
echo "NCCL $version, $n ranks on $nnodes NCCL node(s), $ngpus GPU(s) (${mode[*]}), plugin $plugin"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The fixture's choices, for the NCCL release in use (the plugin refuses other releases).
sed -E "s/\"nccl_version\": \"[0-9.]+\"/\"nccl_version\": \"$version\"/" "$fixture" >"$work/profile.json"
sed -E "s/\"nccl_version\": \"[0-9.]+\"/\"nccl_version\": \"0.0.1\"/" "$fixture" >"$work/other_release.json"
# The same rules, measured (says provenance.offered) where NCCL offered only ring for allreduce.
python3 - "$work/profile.json" "$work/unmeasured.json" "$n" "$nnodes" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
n, nodes = int(sys.argv[3]), int(sys.argv[4])
every = ["tree", "ring", "collnet_direct", "collnet_chain", "nvls", "nvls_tree", "pat"]
p["provenance"]["offered"] = [{"collective": "allreduce", "nranks": n, "nnodes": nodes, "algorithms": ["ring"]},
                              {"collective": "allgather", "nranks": n, "nnodes": nodes, "algorithms": every}]
json.dump(p, open(sys.argv[2], "w"), indent=1)
PY

ops="allreduce:4096 allreduce:1048576 allreduce:16777216 allgather:16777216"
run() { # NAME [ENV...]: runs the program with NCCL's tuning log, output in $work/NAME.log
  local name=$1
  shift
  env "$@" NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=TUNING NCCL_NVLS_ENABLE=0 timeout 180 "$prog" "${mode[@]}" $ops >"$work/$name.log" 2>&1
  local rc=$?
  [ $rc -eq 77 ] && skip "standalone_allreduce found fewer than 2 usable GPUs"
  [ $rc -eq 0 ] || { fail "$name run exited $rc"; tail -20 "$work/$name.log"; }
}

# "algo proto channels" of NCCL's first TUNING line for FUNC of BYTES (as NCCL prints them:
# count x type size per rank, so AllGather prints BYTES/n), lower case.
choice() { # LOG FUNC PRINTED_BYTES
  grep -E "NCCL INFO $2: $3 Bytes -> Algo" "$1" | head -1 |
    sed -E 's/.*Algo ([A-Za-z_]+) proto ([A-Za-z0-9_]+) channel\{Lo\.\.Hi\}=\{([0-9]+)\.\.([0-9]+)\}.*/\1 \2 \3 \4/' |
    awk '{ printf "%s %s %d\n", tolower($1), tolower($2), $4 - $3 + 1 }'
}

# Expected from the fixture (gpu_check_profile.json: same rules for 2, 4 and 8 ranks on 1 node;
# gpu_check_profile_shared_gpu.json: 2 ranks on 2 nodes):
#   FUNC PRINTED_BYTES NCCL_nBYTES ALGO PROTO MAX_CHANNELS
expected="AllReduce 4096 4096 ring simple 2
AllReduce 1048576 1048576 ring ll 4
AllReduce 16777216 16777216 ring ll128 8
AllGather $((16777216 / n)) 16777216 ring ll 4"
[ "$nnodes" -gt 1 ] && expected="AllReduce 4096 4096 ring simple 2
AllReduce 1048576 1048576 ring ll 4
AllReduce 16777216 16777216 ring simple 1
AllGather $((16777216 / n)) 16777216 ring ll 4"

run baseline
run profile NCCL_TUNER_PLUGIN="$plugin" CCTUNE_PROFILE="$work/profile.json"
run other_release NCCL_TUNER_PLUGIN="$plugin" CCTUNE_PROFILE="$work/other_release.json"
run unmeasured NCCL_TUNER_PLUGIN="$plugin" CCTUNE_PROFILE="$work/unmeasured.json"

grep -q "TUNER/Plugin: Using cctune" "$work/profile.log" && pass "NCCL loaded the cctune tuner" ||
  fail "no 'TUNER/Plugin: Using cctune' line: NCCL did not load $plugin"
grep -q "cctune tuner: profile .* rules apply to nranks=$n nnodes=$nnodes" "$work/profile.log" &&
  pass "$(grep -o 'cctune tuner: profile .* rules apply to nranks=[0-9]* nnodes=[0-9]*' "$work/profile.log" | head -1)" ||
  fail "the plugin did not report the profile's rules for nranks=$n nnodes=$nnodes"
grep -q "cctune tuner: not using the profile" "$work/profile.log" && fail "unexpected warning: $(grep 'cctune tuner' "$work/profile.log" | head -1)"

differs=0
while read -r func printed nbytes algo proto maxch; do
  got=$(choice "$work/profile.log" "$func" "$printed")
  default=$(choice "$work/baseline.log" "$func" "$printed")
  other=$(choice "$work/other_release.log" "$func" "$printed")
  read -r galgo gproto gch <<<"$got"
  if [ -z "$got" ]; then
    fail "$func nBytes=$nbytes: no TUNING line"
  elif [ "$galgo $gproto" = "$algo $proto" ] && [ "$gch" -le "$maxch" ]; then
    pass "$func nBytes=$nbytes: profile $algo/$proto <=$maxch ch -> NCCL ran $galgo/$gproto on $gch ch (default: $default)"
  else
    fail "$func nBytes=$nbytes: profile wants $algo/$proto <=$maxch ch, NCCL ran $got (default: $default)"
  fi
  [ "$other" = "$default" ] || fail "$func nBytes=$nbytes: with a refused profile NCCL ran '$other', without plugin '$default'"
  [ "${other% *}" = "$algo $proto" ] || differs=$((differs + 1))
done <<<"$expected"

# One warning per process: 1, or one per shared-GPU rank. NCCL's lines name "host:pid:tid [dev]",
# after a "[date time] " prefix on WARN lines.
warnings=$(grep -c "cctune tuner: not using the profile" "$work/other_release.log")
warned_pids=$(grep "cctune tuner: not using the profile" "$work/other_release.log" | grep -oE '[^ ]+:[0-9]+:[0-9]+ \[' |
  cut -d: -f2 | sort -u | grep -c .)
[ "$warnings" -eq "$processes" ] && [ "$warned_pids" -eq "$processes" ] &&
  pass "profile of another NCCL release: one warning in each of $processes process(es): $(grep -o 'cctune tuner: not using.*' "$work/other_release.log" | head -1)" ||
  fail "profile of another NCCL release: expected 1 warning in each of $processes process(es), saw $warnings from $warned_pids"
[ "$differs" -gt 0 ] || fail "the refused profile's choices all equal NCCL's defaults: this check cannot tell them apart"

# A rule steers only where it competed: NCCL offers more than ring for allreduce here.
unmeasured_warnings=$(grep -c "cctune tuner: NCCL offers .* for allreduce" "$work/unmeasured.log")
[ "$unmeasured_warnings" -eq "$processes" ] &&
  pass "offered beyond the profile's measurements: one warning per process: $(grep -o 'cctune tuner: NCCL offers [^;]*' "$work/unmeasured.log" | head -1)" ||
  fail "offered beyond the profile's measurements: expected $processes warning(s) naming allreduce, saw $unmeasured_warnings"
while read -r func printed nbytes algo proto maxch; do
  got=$(choice "$work/unmeasured.log" "$func" "$printed")
  default=$(choice "$work/baseline.log" "$func" "$printed")
  if [ "$func" = AllReduce ]; then
    [ -n "$got" ] && [ "$got" = "$default" ] && pass "$func nBytes=$nbytes: left to NCCL: $got" ||
      fail "$func nBytes=$nbytes: the profile measured without what NCCL offers still steered: '$got' (default '$default')"
  else
    [ "${got% *}" = "$algo $proto" ] && pass "$func nBytes=$nbytes: still steered to $algo/$proto ($got)" ||
      fail "$func nBytes=$nbytes: expected the profile's $algo/$proto, NCCL ran '$got'"
  fi
done <<<"$expected"

if [ "$failures" -gt 0 ]; then
  echo "plugin_gpu_check: $failures check(s) failed; logs:"
  for f in baseline profile other_release unmeasured; do echo "--- $f"; grep -E "Bytes -> Algo|cctune|TUNER" "$work/$f.log" | head -20; done
  exit 1
fi
echo "plugin_gpu_check: all checks passed"
