# `down`: end every process in the cluster's namespaces (holders, slurmd, slurmctld, orted,
# ranks...), which takes the namespaces with them (and so every veth, bridge and qdisc: none was
# ever made outside them), stop munged, remove the state directory. Exactly what up recorded.
# shellcheck shell=bash

# The pids whose namespaces match one of the recorded identities (net:uts:mnt).
cluster_pids() {
  local -A want=() nets=()
  local f id
  for f in "$state"/ns/*.ids; do
    [[ -s $f ]] || continue
    id=$(<"$f"); want[$id]=1; nets[${id%%:*}]=1
  done
  ((${#want[@]})) || return 0
  local path ino pid
  # One stat for all processes; the full identity only for those in a recorded network namespace.
  while read -r path ino; do
    [[ -n ${nets[$ino]:-} ]] || continue
    pid=${path#/proc/}; pid=${pid%%/*}
    if [[ $pid == "$$" || $pid == "$BASHPID" ]]; then continue; fi
    id=$(ns_ids "$pid") || continue
    if [[ -n ${want[$id]:-} ]]; then echo "$pid"; fi
  done < <(stat -L -c '%n %i' /proc/[0-9]*/ns/net 2>/dev/null || true)
}

# Holders started but not yet recorded (a Ctrl-C in the first milliseconds of one): their
# launched pid, when it is still an unshare/host-init of this state directory.
unrecorded_holders() {
  local f pid
  for f in "$state"/ns/*.launched; do
    [[ -s $f ]] || continue
    if [[ -s ${f%.launched}.ids ]]; then continue; fi
    pid=$(<"$f")
    grep -qF "$state/" "/proc/$pid/cmdline" 2>/dev/null && echo "$pid"
  done
}

kill_cluster_pids() {
  local pids sig=TERM round
  for round in $(seq 1 60); do
    mapfile -t pids < <(cluster_pids; unrecorded_holders)
    ((${#pids[@]})) || return 0
    ((round == 30)) && sig=KILL   # 3 s of TERM, then KILL
    kill "-$sig" "${pids[@]}" 2>/dev/null || true
    sleep 0.1
  done
  echo "onebox: processes still in the cluster's namespaces: ${pids[*]}" >&2
  return 1
}

teardown() {
  stop_munge
  kill_cluster_pids || return 1
  rm -rf "$state"
}

cmd_down() {
  (($# == 0)) || usage_die "down takes no arguments (the cluster is --name $name). Fix: onebox-cluster.sh --name NAME down"
  [[ -e $state || -L $state ]] || die "no cluster '$name' is up (no $state). Fix: nothing to take down; --name names another cluster"
  need_base_tools
  check_owned_dir "$state"
  local me; me=$(ns_ids $$)
  grep -qxF "$me" "$state"/ns/*.ids 2>/dev/null && usage_die "down from inside host $(hostname) would end itself. Fix: run it on the machine, outside the cluster"
  teardown || die "cluster '$name': some processes would not end; its state stays in $state. Fix: kill them, then down again"
  say "cluster '$name' is down; nothing of it is left"
}
