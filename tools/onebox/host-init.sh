#!/usr/bin/env bash
# The first process of a one-box host, started by `onebox-cluster.sh up` through unshare in
# fresh network, UTS and (hosts only) mount namespaces; it holds them until `down` ends it.
#   host-init.sh RECORD HOSTNAME [HOSTS_FILE SCRATCH]
# RECORD: the path prefix where it writes its pid, start time and namespace identities (the
# parent waits for RECORD.ready). With HOSTS_FILE (a host, not the switch) it also:
#  - bind-mounts HOSTS_FILE on /etc/hosts, so that node names resolve alike for mpirun, Slurm,
#    NCCL's bootstrap and torchrun's rendezvous, none of which can be told an address for all;
#  - mounts a sysfs of its own on /sys: sysfs shows the network devices of the namespace that
#    mounted it, so without this /sys/class/net would list the machine's interfaces, not the
#    host's (what `ip netns exec` does too). /sys/fs/cgroup is carried over where it can be.
# Mounts stay inside the host's mount namespace (slave: the machine's later mounts still show).
set -euo pipefail
record=$1 name=$2 hosts=${3:-} scratch=${4:-}
echo $$ > "$record.pid"
awk '{ print $22 }' /proc/$$/stat > "$record.start"
ids() { stat -L -c %i "/proc/$$/ns/$1"; }
echo "$(ids net):$(ids uts):$(ids mnt)" > "$record.ids"
hostname "$name"
if [[ -n $hosts ]]; then
  mount --bind "$hosts" /etc/hosts
  if [[ -d /sys/fs/cgroup ]] && mkdir -p "$scratch" && mount --rbind /sys/fs/cgroup "$scratch" 2>/dev/null; then
    mount -t sysfs -o nosuid,nodev,noexec sysfs /sys
    mount --move "$scratch" /sys/fs/cgroup 2>/dev/null || { echo "host-init: /sys/fs/cgroup not carried over"; umount -l "$scratch" || true; }
  else
    mount -t sysfs -o nosuid,nodev,noexec sysfs /sys
  fi
fi
# No IPv6: nothing here uses it, and link-local addresses on the NICs would only offer NCCL
# and Open MPI a second, scoped address per interface.
echo 1 > /proc/sys/net/ipv6/conf/all/disable_ipv6 2>/dev/null || true
echo 1 > /proc/sys/net/ipv6/conf/default/disable_ipv6 2>/dev/null || true
touch "$record.ready"
exec sleep infinity
