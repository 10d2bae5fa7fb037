#!/bin/busybox sh
# /init of the soft-RoCE VM (tools/rxe-vm.sh). Loads the modules, mounts this machine's
# files read-only (9p) and the work folder read-write at its own path, brings up
# rxe0 on dummy0, runs the command in a chroot and powers off. Variables from the
# kernel command line: cctune_work (the work folder), cctune_nics (rxe devices).
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
say() { echo "rxe-vm: $*"; }
fail() { say "$*"; echo 125 > /host$cctune_work/.rxe-vm/guest.rc 2>/dev/null; poweroff -f; }

for m in $(cat /modules.load); do insmod /modules/$m || fail "insmod $m failed"; done
mkdir -p /host
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=524288 hostroot /host || fail "cannot mount the host's files (9p)"
mount -t 9p -o trans=virtio,version=9p2000.L,msize=524288 work /host$cctune_work || fail "cannot mount $cctune_work (9p)"
# Writable places the guest needs; /tmp stays the host's (the build may live there).
mount -t proc proc /host/proc
mount -t sysfs sys /host/sys
mount -t devtmpfs dev /host/dev
mkdir -p /host/dev/pts /host/dev/shm
mount -t devpts devpts /host/dev/pts
mount -t tmpfs tmpfs /host/dev/shm
mount -t tmpfs tmpfs /host/run
hostname rxe-vm
ip link set lo up

i=0
while [ "$i" -lt "${cctune_nics:-1}" ]; do
  ip link add "rxenet$i" type dummy 2>/dev/null
  ip link set "rxenet$i" up
  ip addr add "10.99.$i.1/24" dev "rxenet$i"
  chroot /host rdma link add "rxe$i" type rxe netdev "rxenet$i" || fail "rdma link add rxe$i failed"
  i=$((i + 1))
done

chroot /host /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  HOME=/run TMPDIR=/run LANG=C.UTF-8 /bin/bash "$cctune_work/.rxe-vm/guest-cmd.sh"
echo $? > "/host$cctune_work/.rxe-vm/guest.rc"
sync
poweroff -f
