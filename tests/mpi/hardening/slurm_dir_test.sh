#!/usr/bin/env bash
# Issue 15 item 11: tools/slurm-localhost.sh trusted whatever sat at its fixed state
# directory. A directory owned by someone else, writable by others, or a symlink is refused
# before any slurm.conf there is read or run.
set -uo pipefail
repo=$1 out=$2
[[ $(id -u) -eq 0 ]] || { echo "SKIP: needs root (chown to another user)"; exit 0; }
rm -rf "$out"; mkdir -p "$out"
failures=0
refused() {  # refused NAME DIR PATTERN
  local err rc
  err=$(CCTUNE_SLURM_DIR=$2 "$repo/tools/slurm-localhost.sh" status 2>&1); rc=$?
  if [[ $rc -eq 0 ]] || ! grep -q -- "$3" <<<"$err"; then echo "FAIL $1: rc=$rc: $err"; failures=$((failures+1)); else echo "ok   $1: $err"; fi
}
mkdir "$out/foreign"; chown nobody "$out/foreign"; echo "SlurmctldHost=evil" > "$out/foreign/slurm.conf"
refused foreign-owner "$out/foreign" "belongs to uid"
mkdir -m 0777 "$out/open"; chmod 0777 "$out/open"
refused world-writable "$out/open" "writable by others"
mkdir "$out/real"; ln -s "$out/real" "$out/link"
refused symlink "$out/link" "symbolic link"
[[ $failures -eq 0 ]] && echo "slurm_dir_test: all ok" || exit 1
