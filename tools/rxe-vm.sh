#!/usr/bin/env bash
# Runs a command inside a throw-away virtual machine whose kernel has soft-RoCE (rdma_rxe),
# so cctune's ibverbs code runs for real against the kernel's RDMA stack and rdma-core on a
# machine without RDMA hardware (a CI runner, a laptop).
#   tools/rxe-vm.sh [--nics N] [--timeout SECONDS] WORK_DIR -- COMMAND [ARG...]
# The guest sees this machine's files read-only at the same paths (9p) and WORK_DIR
# read-write; COMMAND runs there as root from the current directory, with RDMA devices
# rxe0..rxe{N-1} on dummy netdevs 10.99.I.1/24, and HOME and TMPDIR on a tmpfs (/run).
# The exit status is COMMAND's; 77 when the VM cannot run here (the reason is printed);
# 124 when it ran past --timeout (default 900 s). The console goes to WORK_DIR/.rxe-vm/console.log
# and to stdout.
# Needs: qemu-system-x86_64, busybox (static), and the kernel from tools/vm-kernel.sh
# (tools/setup.sh --test fetches it). The VM is emulated (TCG: this also works inside a VM
# without nested virtualisation), so it is slow: it checks behaviour, not speed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
nics=1 limit=900
while [[ $# -gt 0 && $1 == --* ]]; do
  case $1 in
    --nics) nics=$2; shift 2 ;;
    --timeout) limit=$2; shift 2 ;;
    *) echo "rxe-vm: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ $# -ge 3 && $2 == -- ]] || { echo "usage: tools/rxe-vm.sh [--nics N] [--timeout S] WORK_DIR -- COMMAND [ARG...]" >&2; exit 2; }
mkdir -p "$1"; work=$(cd "$1" && pwd); shift 2
[[ $work =~ ^[A-Za-z0-9/._-]+$ ]] || { echo "rxe-vm: WORK_DIR '$work' must be a plain path (letters, digits, / . _ -)" >&2; exit 2; }

kernel=${CCTUNE_VM_KERNEL_DIR:-/var/cache/cctune/vm-kernel}
skip() { echo "SKIP: $*"; exit 77; }
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 not found (apt-get install qemu-system-x86, or tools/setup.sh --test)"
bb=$(command -v busybox) || skip "busybox not found (apt-get install busybox-static)"
[[ $(ldd "$bb" 2>&1) == *"not a dynamic"* ]] || skip "$bb is linked dynamically; the VM needs busybox-static"
[[ -f $kernel/vmlinuz && -f $kernel/modules.load ]] || skip "no soft-RoCE kernel in $kernel (run tools/vm-kernel.sh or tools/setup.sh --test)"
command -v rdma >/dev/null || skip "the rdma tool (iproute2) is missing"

vm=$work/.rxe-vm
rm -rf "$vm"; mkdir -p "$vm/initramfs/bin" "$vm/initramfs/modules"
for d in proc sys dev host; do mkdir -p "$vm/initramfs/$d"; done
cp "$bb" "$vm/initramfs/bin/busybox"
cp "$here/rxe-vm-init.sh" "$vm/initramfs/init"
cp "$kernel/modules.load" "$vm/initramfs/"
cp "$kernel"/modules/*.ko "$vm/initramfs/modules/"
(cd "$vm/initramfs" && find . | cpio -o -H newc --quiet | gzip -1 > "$vm/initramfs.gz")
{
  echo "cd $(printf %q "$PWD") || exit 125"
  printf 'exec'; printf ' %q' "$@"; echo
} > "$vm/guest-cmd.sh"

echo "rxe-vm: booting $(cat "$kernel/VERSION") with $nics soft-RoCE device(s); command: $*"
set +e
# --foreground keeps qemu in this script's process group: a test runner that kills the group
# (ctest at its timeout) takes the VM with it instead of leaving it running.
timeout --foreground --kill-after=10 "$limit" qemu-system-x86_64 -accel tcg,thread=multi -cpu max -smp 2 -m 3072 \
  -kernel "$kernel/vmlinuz" -initrd "$vm/initramfs.gz" \
  -append "console=ttyS0 quiet panic=-1 cctune_work=$work cctune_nics=$nics" \
  -display none -monitor none -serial stdio -nic none -no-reboot \
  -virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
  -virtfs "local,path=$work,mount_tag=work,security_model=none,multidevs=remap" \
  </dev/null 2>&1 | tee "$vm/console.log"
qemu_rc=${PIPESTATUS[0]}
set -e
[[ $qemu_rc -eq 124 || $qemu_rc -eq 137 ]] && { echo "rxe-vm: the VM ran past $limit s and was stopped"; exit 124; }
[[ -f $vm/guest.rc ]] || { echo "rxe-vm: the VM ended (qemu exit $qemu_rc) before the command did"; exit 125; }
exit "$(cat "$vm/guest.rc")"
