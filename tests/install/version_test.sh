#!/usr/bin/env bash
# `cctune --version` always answers, exit 0, within its bound: with the worker module found,
# with a module that does not exist, with one that hangs while loading and with one that
# crashes while loading (both built here as tiny shared objects); NCCL and CUDA then read
# "not found (reason)" and nothing is left running.
#
# usage: version_test.sh CCTUNE
set -uo pipefail
cctune=${1:?usage: version_test.sh CCTUNE}
cc=$(command -v cc || command -v gcc) || { echo "SKIP: no C compiler to build the faulty modules"; exit 77; }

fail() { echo "FAIL: $*"; exit 1; }
pass() { echo "ok:   $*"; }
work=$(mktemp -d /tmp/cctune-version.XXXXXX)
trap 'rm -rf "$work"' EXIT

# version [ENV...]: runs cctune --version into $work/out.txt; its wall time (s) in $secs.
version() {
  local t0=$SECONDS
  env "$@" "$cctune" --version >"$work/out.txt" 2>&1
  rc=$?
  secs=$((SECONDS - t0))
  [[ $rc -eq 0 ]] || { cat "$work/out.txt"; fail "cctune --version exited $rc ($*)"; }
  head -1 "$work/out.txt" | grep -qE '^cctune [0-9]+\.[0-9]+\.[0-9]+ \(' || fail "first line: $(head -1 "$work/out.txt")"
  grep -q '^MPI     Open MPI' "$work/out.txt" || fail "no MPI line ($*)"
}
line() { grep "^$1 " "$work/out.txt" | head -1; }

version
pass "as built: $(line NCCL | tr -s ' '); $(line CUDA | tr -s ' ')"

version CCTUNE_NCCL_MODULE=/nonexistent/libcctune-nccl.so
line NCCL | grep -q 'not found (.*/nonexistent/libcctune-nccl.so' || fail "missing module: $(line NCCL)"
line CUDA | grep -q 'not found' || fail "missing module: $(line CUDA)"
pass "missing module: $(line NCCL | tr -s ' ')"

printf '#include <unistd.h>\n__attribute__((constructor)) static void hang(void) { for (;;) pause(); }\n' >"$work/hang.c"
printf '#include <stdlib.h>\n__attribute__((constructor)) static void crash(void) { abort(); }\n' >"$work/crash.c"
"$cc" -shared -fPIC -o "$work/hang.so" "$work/hang.c" && "$cc" -shared -fPIC -o "$work/crash.so" "$work/crash.c" ||
  fail "cannot build the faulty modules with $cc"

version CCTUNE_NCCL_MODULE="$work/hang.so"
line NCCL | grep -q 'not found (the NCCL module did not answer within' || fail "hanging module: $(line NCCL)"
[[ $secs -le 40 ]] || fail "hanging module: --version took $secs s"
sleep 0.5
pgrep -f -- "__worker --versions" >/dev/null && fail "a '__worker --versions' process is still running after --version returned"
pass "hanging module: answered in $secs s: $(line NCCL | tr -s ' ')"

version CCTUNE_NCCL_MODULE="$work/crash.so"
line NCCL | grep -q 'not found (.*SIGABRT' || fail "crashing module: $(line NCCL)"
pass "crashing module: $(line NCCL | tr -s ' ')"
echo "version_test: all checks passed"
