#!/usr/bin/env bash
# The ibverbs probe for real: boots the soft-RoCE VM (tools/rxe-vm.sh) and runs
# rxe_guest_checks.sh in it. Skips (77) where the VM cannot run, saying why.
# Usage: rxe_vm_test.sh CCTUNE MPIEXEC
set -uo pipefail
cctune=$1 mpiexec=$2
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
"$here/../../../tools/rxe-vm.sh" --timeout 840 "$work" -- "$here/rxe_guest_checks.sh" "$cctune" "$mpiexec" "$work"
