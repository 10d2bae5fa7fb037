# Shared helpers of tools/onebox-cluster.sh: messages, input checks, the state directory,
# ip/tc (from PATH or a carried iproute2 folder), and entering a host's namespaces.
# shellcheck shell=bash

ONEBOX_ROOT=${ONEBOX_ROOT:-/tmp/cctune-onebox}

say() { echo "onebox: $*"; }
# One line, non-zero exit: what is wrong with which input, and the fix.
die() { echo "onebox: error: $*" >&2; exit "${ONEBOX_EXIT:-1}"; }
usage_die() { ONEBOX_EXIT=2 die "$@"; }

# --- inputs ------------------------------------------------------------------------------
valid_name() { [[ $1 =~ ^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$ ]]; }
# RATE: a number and a tc unit (kbit, mbit, gbit); tc itself would take more spellings, but a
# typo such as "25gb" (gigabytes per second in tc) must not shape a link 8x off.
valid_rate() { [[ ${1,,} =~ ^[0-9]+(\.[0-9]+)?(kbit|mbit|gbit)$ ]]; }
valid_latency() { [[ ${1,,} =~ ^[0-9]+(\.[0-9]+)?(us|ms)$ ]]; }
valid_loss() { [[ $1 =~ ^[0-9]+(\.[0-9]+)?%$ ]] && awk -v p="${1%\%}" 'BEGIN { exit !(p < 100) }'; }
rate_bps() {  # tc rate text -> bits per second (integer)
  local r=${1,,} mult
  case $r in *kbit) mult=1e3 ;; *mbit) mult=1e6 ;; *gbit) mult=1e9 ;; esac
  awk -v n="${r%?bit}" -v m="$mult" 'BEGIN { printf "%.0f", n * m }'
}
latency_us() {  # tc time text -> microseconds
  local l=${1,,}
  case $l in *us) awk -v n="${l%us}" 'BEGIN { printf "%.1f", n }' ;; *ms) awk -v n="${l%ms}" 'BEGIN { printf "%.1f", n * 1000 }' ;; esac
}

# parse_link SPEC WHAT: RATE[,LATENCY[,LOSS%]] -> sets link_rate link_latency link_loss (empty when
# not given), or dies naming WHAT (the option it came from).
parse_link() {
  local spec=$1 what=$2 rest
  IFS=, read -r link_rate link_latency link_loss rest <<<"$spec"
  [[ -z $rest ]] || usage_die "$what '$spec': at most RATE,LATENCY,LOSS%. Fix: e.g. $what 25gbit,50us,0.1%"
  valid_rate "$link_rate" || usage_die "$what '$spec': '$link_rate' is not a rate. Fix: a number with kbit, mbit or gbit, e.g. 25gbit"
  rate_bps "$link_rate" | awk '{ exit !($1 >= 8000) }' || usage_die "$what '$spec': '$link_rate' is below 8kbit, which tbf cannot shape. Fix: a larger rate"
  [[ -z $link_latency ]] || valid_latency "$link_latency" \
    || usage_die "$what '$spec': '$link_latency' is not a latency. Fix: a number with us or ms, e.g. 50us"
  [[ -z $link_loss ]] || valid_loss "$link_loss" \
    || usage_die "$what '$spec': '$link_loss' is not a loss. Fix: a percentage below 100, e.g. 0.1%"
}

# --- the state directory -----------------------------------------------------------------
# Everything `up` made is recorded under $state (hosts, namespaces' identities, daemons), so that
# `down` removes exactly that. Its path is fixed and guessable and root runs what it holds: it
# must be ours and closed to others, as tools/slurm-localhost.sh demands of its own.
state_of() { echo "$ONEBOX_ROOT/$1"; }

check_owned_dir() {
  local d=$1 owner mode
  if [[ -L $d ]]; then die "$d is a symbolic link, not a directory this script created. Fix: remove it, or set ONEBOX_ROOT"; fi
  [[ -d $d ]] || die "$d is not a directory. Fix: remove it, or set ONEBOX_ROOT"
  owner=$(stat -c %u "$d") mode=$(stat -c %a "$d")
  [[ $owner == "$(id -u)" ]] || die "$d belongs to uid $owner, not to us. Fix: remove it, or set ONEBOX_ROOT"
  (( (8#$mode & 8#022) == 0 )) || die "$d is writable by others (mode $mode). Fix: remove it, or set ONEBOX_ROOT"
}

ensure_root_dir() {
  [[ -e $ONEBOX_ROOT || -L $ONEBOX_ROOT ]] || mkdir -m 0755 -p "$ONEBOX_ROOT" || die "cannot create $ONEBOX_ROOT. Fix: set ONEBOX_ROOT to a writable directory"
  check_owned_dir "$ONEBOX_ROOT"
}

# --- ip and tc -----------------------------------------------------------------------------
# ONEBOX_IPROUTE: a folder with a carried iproute2 (tools/onebox-carry.sh: Debian's packages
# unpacked with dpkg -x), for machines without ip and tc. Its libraries come first on
# LD_LIBRARY_PATH for ip and tc only, never for anything else that runs on a host.
find_iproute() {
  IP=() TC=()
  # The folder up used, recorded with the cluster: later shape/link calls need no variable.
  if [[ -z ${ONEBOX_IPROUTE:-} && -n ${iproute:-} ]]; then ONEBOX_IPROUTE=$iproute; fi
  if [[ -n ${ONEBOX_IPROUTE:-} ]]; then
    local root d libs=
    root=$(cd "$ONEBOX_IPROUTE" 2>/dev/null && pwd) || die "ONEBOX_IPROUTE=$ONEBOX_IPROUTE is not a folder. Fix: point it at tools/onebox-carry.sh's output"
    for d in "$root" "$root/sbin" "$root/usr/sbin" "$root/bin" "$root/usr/bin"; do
      if [[ -x $d/ip && -z ${IP[*]} ]]; then IP=("$d/ip"); fi
      if [[ -x $d/tc && -z ${TC[*]} ]]; then TC=("$d/tc"); fi
    done
    [[ -n ${IP[*]} && -n ${TC[*]} ]] || die "ONEBOX_IPROUTE=$ONEBOX_IPROUTE holds no ip and tc. Fix: prepare it with tools/onebox-carry.sh"
    for d in "$root/lib/x86_64-linux-gnu" "$root/usr/lib/x86_64-linux-gnu" "$root/lib" "$root/usr/lib"; do
      if [[ -d $d ]]; then libs+=${libs:+:}$d; fi
    done
    IP=(env "LD_LIBRARY_PATH=$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "${IP[0]}")
    TC=(env "LD_LIBRARY_PATH=$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "${TC[0]}")
  else
    command -v ip >/dev/null && command -v tc >/dev/null \
      || die "ip and tc are not on PATH. Fix: apt-get install iproute2, or carry one (tools/onebox-carry.sh DIR here, ONEBOX_IPROUTE=DIR there)"
    IP=(ip) TC=(tc)
  fi
  local fix="prepare ONEBOX_IPROUTE again with tools/onebox-carry.sh"
  [[ -n ${ONEBOX_IPROUTE:-} ]] || fix="install iproute2, or carry one (tools/onebox-carry.sh DIR, then ONEBOX_IPROUTE=DIR)"
  "${IP[@]}" -V >/dev/null 2>&1 || die "'${IP[*]: -1} -V' does not run. Fix: $fix"
  "${TC[@]}" -V >/dev/null 2>&1 || die "'${TC[*]: -1} -V' does not run. Fix: $fix"
}

iproute_root() { if [[ -n ${ONEBOX_IPROUTE:-} ]]; then (cd "$ONEBOX_IPROUTE" && pwd); fi; }

need_base_tools() {
  [[ $(id -u) -eq 0 ]] || die "must run as root (namespaces, links and qdiscs need CAP_SYS_ADMIN and CAP_NET_ADMIN)"
  local t
  for t in unshare nsenter mount awk setsid; do
    command -v "$t" >/dev/null || die "'$t' not found. Fix: apt-get install util-linux mount gawk"
  done
}

# --- hosts and their namespaces -------------------------------------------------------------
# A host's namespaces are held by one process (its "holder"), started by `up`. The identity
# recorded for each is the inode of every namespace it made (net, uts, mnt; the switch: net, uts):
# a process belongs to the host when all of them match, so `down` kills exactly the host's
# processes even after the holder itself is gone.
ns_ids() {  # PID -> "net:uts:mnt" inodes
  local p=$1 n u m
  n=$(stat -L -c %i "/proc/$p/ns/net" 2>/dev/null) || return 1
  u=$(stat -L -c %i "/proc/$p/ns/uts" 2>/dev/null) || return 1
  m=$(stat -L -c %i "/proc/$p/ns/mnt" 2>/dev/null) || return 1
  echo "$n:$u:$m"
}
start_time() { awk '{ print $22 }' "/proc/$1/stat" 2>/dev/null; }

# holder_pid WHO: the live holder of host WHO (or "switch"), checked against what up recorded.
holder_pid() {
  local who=$1 f=$state/ns/$1 pid
  [[ -s $f.pid ]] || return 1
  pid=$(<"$f.pid")
  [[ $pid =~ ^[0-9]+$ && $(start_time "$pid") == "$(<"$f.start")" ]] || return 1
  echo "$pid"
}

hosts_of_state() { [[ -s $state/hosts.list ]] && cat "$state/hosts.list"; }
host_known() { grep -qx -- "$1" "$state/hosts.list" 2>/dev/null; }

# host_pin HOST: the words that put a command on HOST's CPUs (taskset -c LIST), or none where the
# hosts share the machine's CPUs. Read from the host's environment file written by up.
host_pin() {
  local cpus
  cpus=$(sed -n 's/^ONEBOX_CPUS=//p' "$state/hosts/$1.env" 2>/dev/null)
  if [[ -n $cpus ]]; then echo "taskset -c $cpus"; fi
}

# in_ns WHO CMD...: run CMD in WHO's network (and, for a host, UTS and mount) namespaces.
in_ns() {
  local who=$1 pid; shift
  pid=$(holder_pid "$who") || die "host $who of cluster '$name' is not running (its holder process is gone). Fix: onebox-cluster.sh --name $name down, then up again"
  if [[ $who == switch ]]; then nsenter -t "$pid" -n -u -- "$@"
  else nsenter -t "$pid" -n -u -m --wd="$PWD" -- "$@"; fi
}
ip_in() { local who=$1; shift; in_ns "$who" "${IP[@]}" "$@"; }
tc_in() { local who=$1; shift; in_ns "$who" "${TC[@]}" "$@"; }

# resolve_host NAME: the host (nodeH) that NAME names: a host, a NIC's name (node1-eth1) or an
# address, as the cluster's hosts file lists them.
resolve_host() {
  local n=$1
  host_known "$n" && { echo "$n"; return 0; }
  [[ -s $state/etc/hosts ]] || return 1
  local h
  h=$(awk -v n="$n" '!/^#/ { for (i = 1; i <= NF; i++) if ($i == n) { print $2; exit } }' "$state/etc/hosts")
  h=${h%-eth*}
  host_known "$h" && echo "$h"
}
