# The kernel features a one-box cluster needs, tried for real in a throwaway network namespace
# (it vanishes with the probe, so nothing is left behind): veth pairs, bridges, tbf and, only
# when a latency or loss is asked for, netem. Each missing piece is one line with a fallback;
# there is no silent fallback to NCCL_HOSTID on one loopback.
# shellcheck shell=bash

check_kernel() {  # check_kernel NEED_NETEM(0|1)
  local need_netem=$1 rc=0 ipq tcq
  ipq=$(printf '%q ' "${IP[@]}") tcq=$(printf '%q ' "${TC[@]}")
  unshare --net --uts -- bash -c "
    $ipq link add obk0 type veth peer name obk1 >/dev/null 2>&1 || exit 11
    $ipq link add obkbr type bridge >/dev/null 2>&1 || exit 12
    $ipq link set obk0 master obkbr >/dev/null 2>&1 || exit 12
    $tcq qdisc add dev obk1 root tbf rate 1gbit burst 128k latency 20ms >/dev/null 2>&1 || exit 13
    if [[ $need_netem == 1 ]]; then
      $tcq qdisc add dev obk0 root handle 1: netem delay 10us >/dev/null 2>&1 || exit 14
    fi
    hostname onebox-probe 2>/dev/null || exit 15
  " || rc=$?
  local emulate="or use cctune's one-stack test mode knowingly (cctune sweep --emulate-nodes K: one hostname, one unshaped loopback)"
  case $rc in
    0) return 0 ;;
    11) die "the kernel cannot make veth pairs (CONFIG_VETH). Fix: modprobe veth, $emulate" ;;
    12) die "the kernel cannot make bridges or attach ports to them (CONFIG_BRIDGE). Fix: modprobe bridge, $emulate" ;;
    13) die "the kernel has no tbf qdisc (CONFIG_NET_SCH_TBF), so links cannot be shaped to a rate. Fix: modprobe sch_tbf, $emulate" ;;
    14) die "the kernel has no netem qdisc (CONFIG_NET_SCH_NETEM), which a latency or loss needs. Fix: modprobe sch_netem, or give --link and --slow a rate only (e.g. --link 25gbit)" ;;
    15) die "cannot set a host name in a new UTS namespace. Fix: run as root on a kernel with CONFIG_UTS_NS" ;;
    *) die "cannot make a network namespace (unshare --net exited $rc). Fix: run as root on a kernel with CONFIG_NET_NS" ;;
  esac
}
