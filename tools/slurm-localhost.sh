#!/usr/bin/env bash
# A real, one-node Slurm on this machine for tests and CI: munged, slurmctld and slurmd
# as root, no cgroups, state in one directory.
#
#   tools/slurm-localhost.sh start    # idempotent; waits until the node is idle
#   tools/slurm-localhost.sh status   # exit 0 when the cluster answers and the node is usable
#   tools/slurm-localhost.sh env      # prints `export SLURM_CONF=...` (eval it)
#   tools/slurm-localhost.sh stop     # kills the daemons it started, removes the directory
#
# Environment:
#   CCTUNE_SLURM_DIR   state directory (default /tmp/cctune-slurm)
#   CCTUNE_SLURM_CPUS  CPUs the node advertises (default: max(nproc, 8), so 2-4 MPI tasks
#                      fit on a 2-core CI box; slurmd is told to trust the config)
#   CCTUNE_SLURM_PORT  slurmctld port; slurmd uses port+1 (default 6817)
#
# Clients (sbatch, srun, squeue, sinfo) find this cluster through SLURM_CONF, which
# `env` prints: eval "$(tools/slurm-localhost.sh env)". Nothing under /etc is changed,
# except that a munge key is created at /etc/munge/munge.key when none exists.
set -euo pipefail

dir=${CCTUNE_SLURM_DIR:-/tmp/cctune-slurm}
port=${CCTUNE_SLURM_PORT:-6817}
conf=$dir/slurm.conf
node=$(hostname -s)
say() { echo "slurm-localhost: $*"; }
die() { echo "slurm-localhost: error: $*" >&2; exit 1; }
# shellcheck source=tools/slurm_conf.sh
source "$(dirname "${BASH_SOURCE[0]}")/slurm_conf.sh"

# Prints the pid in $1 when that process is alive and is the expected program ($2).
live_pid() {
  local file=$1 prog=$2 pid
  [[ -s $file ]] || return 1
  pid=$(<"$file")
  [[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null || return 1
  [[ $(cat "/proc/$pid/comm" 2>/dev/null) == "$prog"* ]] || return 1
  echo "$pid"
}

need_tools() {
  [[ $(id -u) -eq 0 ]] || die "must run as root (slurmd starts job steps as their users)"
  local t
  for t in munged slurmctld slurmd sinfo scontrol; do
    command -v "$t" >/dev/null || die "'$t' not found. Fix: apt-get install slurm-wlm munge"
  done
}

write_conf() {
  local cpus=${CCTUNE_SLURM_CPUS:-$(( $(nproc) > 8 ? $(nproc) : 8 ))}
  mkdir -p "$dir"/{state,spool,munge,log}
  chmod 0755 "$dir" "$dir/munge"
  {
    cat <<EOF
# Written by tools/slurm-localhost.sh: a one-node test cluster, no cgroups, no accounting.
ClusterName=cctune-localhost
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
KillWait=10
MinJobAge=600
EOF
    slurm_conf_shared  # tools/slurm_conf.sh
    echo "NodeName=$node NodeHostname=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=1000 State=UNKNOWN"
    echo "PartitionName=debug Nodes=$node Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES"
  } > "$conf.tmp"
  mv "$conf.tmp" "$conf"
  # Slurm reads cgroup.conf next to slurm.conf; an empty one keeps it from guessing.
  : > "$dir/cgroup.conf"
}

start_munge() {
  if live_pid "$dir/munge/munged.pid" munged >/dev/null; then return 0; fi
  if [[ ! -s /etc/munge/munge.key ]]; then
    say "creating /etc/munge/munge.key"
    install -d -m 0700 /etc/munge
    dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=1024 status=none
    chmod 0400 /etc/munge/munge.key
  fi
  rm -f "$dir/munge/munge.socket" "$dir/munge/munge.socket.lock"
  munged --force --socket="$dir/munge/munge.socket" --key-file=/etc/munge/munge.key \
    --pid-file="$dir/munge/munged.pid" --log-file="$dir/log/munged.log" \
    --seed-file="$dir/munge/munged.seed" || die "munged did not start; see $dir/log/munged.log"
}

start_daemon() {  # $1: program, rest: arguments
  local prog=$1; shift
  if live_pid "$dir/$prog.pid" "$prog" >/dev/null; then return 0; fi
  rm -f "$dir/$prog.pid"
  # Foreground daemons (-D) in the background of this script: their pid files are ours,
  # and nothing is left behind by a daemonising fork when a test kills them.
  setsid "$prog" -D -f "$conf" "$@" >>"$dir/log/$prog.out" 2>&1 < /dev/null &
  echo $! > "$dir/$prog.pid"
}

node_state() { SLURM_CONF=$conf sinfo -h -N -n "$node" -o '%T' 2>/dev/null | head -1; }

wait_idle() {
  local state
  for _ in $(seq 1 120); do
    state=$(node_state || true)
    case $state in
      idle*|mixed*|allocated*) return 0 ;;
      down*|drain*|fail*)
        # A node left DOWN by an earlier run (or a slurmd restart) comes back explicitly.
        SLURM_CONF=$conf scontrol update nodename="$node" state=resume >/dev/null 2>&1 || true ;;
    esac
    sleep 0.5
  done
  die "node $node never became idle (last state: '${state:-no answer}'); see $dir/log/"
}

cmd_start() {
  need_tools
  if cmd_status >/dev/null 2>&1; then say "already running ($conf)"; return 0; fi
  [[ -f $conf ]] || write_conf
  start_munge
  start_daemon slurmctld
  local ctld; ctld=$(<"$dir/slurmctld.pid")
  for _ in $(seq 1 60); do
    SLURM_CONF=$conf scontrol ping 2>/dev/null | grep -q UP && break
    # The process itself, not its name: until setsid has exec'ed slurmctld (slow on a loaded
    # machine) the name is still setsid's.
    kill -0 "$ctld" 2>/dev/null || die "slurmctld exited; see $dir/log/slurmctld.log"
    sleep 0.5
  done
  start_daemon slurmd
  wait_idle
  say "up: node $node $(node_state), SLURM_CONF=$conf"
}

cmd_status() {
  [[ -f $conf ]] || { echo "not configured ($conf missing)"; return 1; }
  local p
  for p in munged slurmctld slurmd; do
    local f=$dir/$p.pid; [[ $p == munged ]] && f=$dir/munge/munged.pid
    live_pid "$f" "$p" >/dev/null || { echo "$p not running"; return 1; }
  done
  local state; state=$(node_state || true)
  echo "node $node: ${state:-no answer}"
  [[ $state == idle* || $state == mixed* || $state == allocated* ]]
}

cmd_stop() {
  [[ -d $dir ]] || { say "not running"; return 0; }
  local p f pid
  for p in slurmd slurmctld munged; do
    f=$dir/$p.pid; [[ $p == munged ]] && f=$dir/munge/munged.pid
    if pid=$(live_pid "$f" "$p"); then
      kill -TERM "$pid" 2>/dev/null || true
      for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
      kill -KILL "$pid" 2>/dev/null || true
    fi
  done
  rm -rf "$dir"
  say "stopped"
}

# The state directory sits at a fixed, guessable path (under /tmp by default), and its
# slurm.conf is run as root by the daemons: it must be a real directory that we own and no
# one else can write, or someone else planted it. Created here (mode 0755) when absent.
check_dir() {
  if [[ ! -e $dir && ! -L $dir ]]; then
    mkdir -m 0755 "$dir" || die "cannot create $dir"
  fi
  [[ -L $dir ]] && die "$dir is a symbolic link, not a directory this script created. Fix: remove it, or set CCTUNE_SLURM_DIR"
  [[ -d $dir ]] || die "$dir is not a directory. Fix: remove it, or set CCTUNE_SLURM_DIR"
  local owner mode
  owner=$(stat -c %u "$dir") mode=$(stat -c %a "$dir")
  [[ $owner == "$(id -u)" ]] || die "$dir belongs to uid $owner, not to us. Fix: remove it, or set CCTUNE_SLURM_DIR"
  (( (8#$mode & 8#022) == 0 )) || die "$dir is writable by others (mode $mode). Fix: remove it, or set CCTUNE_SLURM_DIR"
}

case ${1:-} in
  start|status) check_dir ;;
esac
case ${1:-} in
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  env) echo "export SLURM_CONF=$conf" ;;
  *) echo "usage: $0 start|stop|status|env" >&2; exit 2 ;;
esac
