# Slurm across the one-box hosts: one munged (in the machine's namespace: its socket is a path on
# the shared file system, which every host reaches), slurmctld on node0 (the head node, as on a
# small cluster), one slurmd in each host's namespaces with its own NodeName, NodeHostname and
# NodeAddr. Ports are per network namespace, so the default ports clash with nothing outside
# (tools/slurm-localhost.sh's 6817 lives in the machine's own namespace). No cgroups, as there.
# Needs: lib.sh, ../slurm_conf.sh, $state, $name, hosts.list. Daemons are recorded as DIR/NAME.pid + .start.
# shellcheck shell=bash

slurm_dir() { echo "$state/slurm"; }

write_slurm_conf() {  # write_slurm_conf HOSTS CPUS
  local d n=$1 cpus=$2 h last=$(($1 - 1))
  d=$(slurm_dir)
  mkdir -p "$d"/{state,spool,tmp,log} "$state/munge"
  # Per node: its spool and its TmpFS (PMIx puts each step's client directory there, named by
  # job and step only, so nodes sharing one /tmp would collide as they never do on a cluster).
  for ((h = 0; h < n; h++)); do mkdir -p "$d/spool/node$h" "$d/tmp/node$h"; done
  chmod 0755 "$state/munge"
  {
    cat <<CONF
# Written by tools/onebox-cluster.sh for cluster '$name': $n hosts in namespaces, no cgroups.
ClusterName=onebox-${name,,}
SlurmctldHost=node0($(nic_address 0 0))
SlurmctldPort=6817
SlurmdPort=6818
AuthInfo=socket=$state/munge/munge.socket
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool/%n
TmpFS=$d/tmp/%n
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.%n.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd.%n.log
TaskProlog=$state/bin/task-prolog
KillWait=5
MinJobAge=300
CONF
    slurm_conf_shared  # tools/slurm_conf.sh
    for ((h = 0; h < n; h++)); do
      echo "NodeName=node$h NodeHostname=node$h NodeAddr=$(nic_address "$h" 0) CPUs=$cpus RealMemory=1000 State=UNKNOWN"
    done
    echo "PartitionName=onebox Nodes=node[0-$last] Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES"
  } > "$d/slurm.conf"
  : > "$d/cgroup.conf"   # read beside slurm.conf; an empty one keeps Slurm from guessing
  # A job step's CUDA_VISIBLE_DEVICES: the host's own GPUs (no GRES: the split is the cluster's).
  cat > "$state/bin/task-prolog" <<PROLOG
#!/bin/sh
# Slurm TaskProlog of one-box cluster '$name': "export NAME=VALUE" lines set the task's environment.
f=$state/hosts/\$(hostname).env
[ -r "\$f" ] && grep '^CUDA_VISIBLE_DEVICES=' "\$f" | sed 's/^/export /'
exit 0
PROLOG
  chmod 0755 "$state/bin/task-prolog"
}

# record_daemon FILE PID: the pid and its start time, so down never kills a reused pid.
record_daemon() { echo "$2" > "$1.pid"; start_time "$2" > "$1.start"; }
daemon_pid() {  # daemon_pid FILE -> the live pid recorded there
  local pid
  [[ -s $1.pid && -s $1.start ]] || return 1
  pid=$(<"$1.pid")
  [[ $pid =~ ^[0-9]+$ && $(start_time "$pid") == "$(<"$1.start")" ]] || return 1
  echo "$pid"
}

start_munge() {
  local m=$state/munge
  for t in munged slurmctld slurmd sinfo scontrol sbatch srun; do
    command -v "$t" >/dev/null || die "--slurm: '$t' not found. Fix: apt-get install slurm-wlm munge, or leave --slurm out"
  done
  # The cluster's own key: nothing under /etc is read or changed.
  (umask 077; dd if=/dev/urandom of="$m/munge.key" bs=1 count=1024 status=none)
  chmod 0400 "$m/munge.key"
  munged --force --socket="$m/munge.socket" --key-file="$m/munge.key" --pid-file="$m/munged.pidfile" \
    --log-file="$(slurm_dir)/log/munged.log" --seed-file="$m/munged.seed" \
    || die "munged did not start. Fix: see $(slurm_dir)/log/munged.log"
  local i
  for ((i = 0; i < 50; i++)); do [[ -s $m/munged.pidfile ]] && break; sleep 0.1; done
  [[ -s $m/munged.pidfile ]] || die "munged wrote no pid file. Fix: see $(slurm_dir)/log/munged.log"
  record_daemon "$m/munged" "$(<"$m/munged.pidfile")"
}

# start_in_host HOST PROG ARGS...: a foreground daemon (-D) inside HOST's namespaces. Neither
# setsid (in a process that leads no group) nor nsenter (entering no PID namespace) forks: they
# exec in place, so the launched pid is the daemon's; its start time guards against pid reuse.
start_in_host() {
  local host=$1 prog=$2 holder rec; shift 2
  rec=$(slurm_dir)/$prog.$host
  holder=$(holder_pid "$host") || die "host $host is not running. Fix: onebox-cluster.sh --name $name down, then up again"
  local pin; read -r -a pin <<<"$(host_pin "$host")"
  setsid nsenter -t "$holder" -n -u -m --wd=/ -- "${pin[@]}" "$prog" -D "$@" >>"$(slurm_dir)/log/$prog.$host.out" 2>&1 </dev/null &
  local pid=$!
  for _ in $(seq 1 50); do [[ $(cat "/proc/$pid/comm" 2>/dev/null) == "${prog:0:15}" ]] && break; sleep 0.1; done
  record_daemon "$rec" "$pid"
}

slurm_env() { echo "SLURM_CONF=$(slurm_dir)/slurm.conf"; }

wait_slurm_nodes() {  # all nodes idle, within 60 s; a node left DOWN is resumed
  local n=$1 conf idle=0 nodes= deadline=$((SECONDS + 60))
  conf=$(slurm_dir)/slurm.conf
  while ((SECONDS < deadline)); do
    nodes=$(in_ns node0 env SLURM_CONF="$conf" sinfo -h -N -o '%N %T' 2>/dev/null || true)
    idle=$(grep -cE ' (idle|mixed|allocated)' <<<"$nodes" || true)
    ((idle >= n)) && return 0
    if grep -qE ' (down|drain|fail)' <<<"$nodes"; then
      in_ns node0 env SLURM_CONF="$conf" scontrol update nodename="node[0-$((n - 1))]" state=resume >/dev/null 2>&1 || true
    fi
    sleep 0.5
  done
  die "Slurm: only $idle of $n nodes became idle in 60 s (sinfo: $(tr '\n' ';' <<<"$nodes")). Fix: see $(slurm_dir)/log/"
}

start_slurm() {  # start_slurm HOSTS CPUS
  local n=$1 h conf
  write_slurm_conf "$n" "$2"
  conf=$(slurm_dir)/slurm.conf
  start_munge
  start_in_host node0 slurmctld -f "$conf"
  local deadline=$((SECONDS + 30))
  until in_ns node0 env SLURM_CONF="$conf" scontrol ping 2>/dev/null | grep -q UP; do
    daemon_pid "$(slurm_dir)/slurmctld.node0" >/dev/null || die "slurmctld exited. Fix: see $(slurm_dir)/log/slurmctld.log"
    ((SECONDS < deadline)) || die "slurmctld did not answer in 30 s. Fix: see $(slurm_dir)/log/slurmctld.log"
    sleep 0.3
  done
  for ((h = 0; h < n; h++)); do start_in_host "node$h" slurmd -f "$conf" -N "node$h"; done
  wait_slurm_nodes "$n"
}

stop_munge() {  # the one daemon outside the hosts' namespaces
  local pid
  pid=$(daemon_pid "$state/munge/munged") || return 0
  kill -TERM "$pid" 2>/dev/null
  for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
}
