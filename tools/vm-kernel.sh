#!/usr/bin/env bash
# Fetches a Debian kernel that has soft-RoCE (rdma_rxe) for tools/rxe-vm.sh, into a cache
# (default /var/cache/cctune/vm-kernel, or $CCTUNE_VM_KERNEL_DIR). Only the kernel image and
# the modules the VM loads are kept (a few MiB); nothing is installed into /boot.
# Idempotent: does nothing when the cache is already filled.
#   tools/vm-kernel.sh
set -euo pipefail
dest=${CCTUNE_VM_KERNEL_DIR:-/var/cache/cctune/vm-kernel}
[[ -f $dest/vmlinuz && -f $dest/modules.load ]] && { echo "vm-kernel: cached in $dest"; exit 0; }

# What the VM loads, in dependency order: virtio + 9p (the host's files), the crc32 the
# rxe driver asks the crypto API for, soft-RoCE itself, and a dummy netdev to carry it.
wanted=(virtio_pci 9pnet_virtio 9p crc32_generic rdma_rxe dummy)
# Folders that hold those modules and everything they depend on.
subtrees=(drivers/virtio net/9p fs/9p fs/netfs fs/fscache drivers/infiniband/core drivers/infiniband/sw/rxe
          net/ipv4/udp_tunnel.ko net/ipv6/ip6_udp_tunnel.ko crypto/crc32_generic.ko drivers/net/dummy.ko)

command -v apt-get >/dev/null || { echo "vm-kernel: apt-get not found: this needs Debian (its linux-image-amd64)" >&2; exit 3; }
pkg=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
[[ -n $pkg ]] || { echo "vm-kernel: apt cannot resolve linux-image-amd64; run apt-get update first" >&2; exit 3; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && apt-get download -q "$pkg" >/dev/null 2>&1) ||
  { echo "vm-kernel: apt-get download $pkg failed" >&2; exit 3; }
deb=$(ls "$tmp"/*.deb)
release=${pkg#linux-image-}
patterns=("./boot/vmlinuz-$release")
for s in "${subtrees[@]}"; do patterns+=("./lib/modules/$release/kernel/$s"); done
mkdir -p "$tmp/x"
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp/x" "${patterns[@]}"
busybox depmod -b "$tmp/x" "$release"

rm -rf "$dest.new"; mkdir -p "$dest.new/modules"
cp "$tmp/x/boot/vmlinuz-$release" "$dest.new/vmlinuz"
moddir=$tmp/x/lib/modules/$release
: > "$dest.new/modules.load"
for t in "${wanted[@]}"; do
  line=$(grep -E "/$t\.ko:" "$moddir/modules.dep") || { echo "vm-kernel: $pkg has no $t module" >&2; exit 3; }
  # modules.dep lists a module's dependencies so that loading them last-first works.
  for m in $(echo "${line#*:}" | tr ' ' '\n' | tac) "${line%%:*}"; do
    grep -qx "$(basename "$m")" "$dest.new/modules.load" && continue
    cp "$moddir/$m" "$dest.new/modules/"
    basename "$m" >> "$dest.new/modules.load"
  done
done
echo "$pkg" > "$dest.new/VERSION"
rm -rf "$dest"; mv "$dest.new" "$dest"
echo "vm-kernel: $pkg in $dest ($(wc -l < "$dest/modules.load") modules)"
