# run, env, status, shape, link: the commands that use a cluster that is up.
# shellcheck shell=bash

require_up() {
  [[ -d $state && -s $state/hosts.list ]] || die "no cluster '$name' is up (no $state). Fix: onebox-cluster.sh --name $name up --hosts 2"
  check_owned_dir "$state"
  # The settings up chose (nics, slurm, ...), for cluster_env and the checks below.
  local k v
  while IFS='=' read -r k v; do
    case $k in hosts|nics|mtu|gpus_per_host|slots|slurm|link|iproute) printf -v "$k" '%s' "$v" ;; esac
  done < "$state/cluster.conf"
  with_slurm=$slurm
}

unknown_host() { usage_die "unknown host '$1' in cluster '$name' (hosts: $(hosts_of_state | tr '\n' ' ')). Fix: name one of them"; }

# run HOST [--] CMD...: CMD in HOST's namespaces with the caller's environment plus the host's
# (its GPUs, the rsh agent, SLURM_CONF): as an operator's shell on that node.
cmd_run() {
  [[ -n ${1:-} ]] || usage_die "run: no host. Fix: onebox-cluster.sh run node0 -- CMD"
  require_up
  local host
  host=$(resolve_host "$1") || unknown_host "$1"
  shift
  if [[ ${1:-} == -- ]]; then shift; fi
  (($#)) || usage_die "run $host: no command. Fix: onebox-cluster.sh run $host -- CMD (e.g. bash)"
  local pid
  pid=$(holder_pid "$host") || die "host $host of cluster '$name' is not running. Fix: onebox-cluster.sh --name $name status"
  mapfile -t host_env < "$state/hosts/$host.env"
  local pin; read -r -a pin <<<"$(host_pin "$host")"
  exec nsenter -t "$pid" -n -u -m --wd="$PWD" -- "${pin[@]}" env "${host_env[@]}" "$@"
}

cmd_env() {
  (($# == 0)) || usage_die "env takes no arguments. Fix: eval \"\$(onebox-cluster.sh --name $name env)\""
  require_up
  cluster_env | sed 's/^\([A-Za-z_0-9]*\)=\(.*\)$/export \1=\2/'
  echo "export ONEBOX_HOSTS=\"$(hosts_of_state | tr '\n' ' ' | sed 's/ $//')\""
}

cmd_status() {
  (($# == 0)) || usage_die "status takes no arguments"
  require_up
  local ok=0 h pid
  echo "cluster '$name' ($state): $hosts host(s), $nics NIC(s) each, MTU $mtu, GPUs per host: ${gpus_per_host:-not set}"
  for h in switch $(hosts_of_state); do
    if pid=$(holder_pid "$h"); then echo "  $h: up (holder $pid)"; else echo "  $h: DOWN (holder gone)"; ok=1; fi
  done
  echo "  links (host NIC address rate latency loss; both ends shaped):"
  sed 's/^/    /' "$state/links.tsv"
  if [[ $with_slurm == 1 ]]; then
    local d; d=$(slurm_dir)
    daemon_pid "$state/munge/munged" >/dev/null && echo "  munged: up" || { echo "  munged: DOWN"; ok=1; }
    daemon_pid "$d/slurmctld.node0" >/dev/null && echo "  slurmctld (node0): up" || { echo "  slurmctld (node0): DOWN"; ok=1; }
    for h in $(hosts_of_state); do
      daemon_pid "$d/slurmd.$h" >/dev/null && echo "  slurmd ($h): up" || { echo "  slurmd ($h): DOWN"; ok=1; }
    done
  fi
  return $ok
}

# parse_target HOST:NIC -> sets t_host (index) and t_nic (index), or dies naming the input.
parse_target() {
  local h=${1%%:*} i=${1#*:}
  [[ $1 == *:* ]] || usage_die "'$1': HOST:NIC, e.g. node1:eth0"
  host_known "$h" || unknown_host "$h"
  [[ $i =~ ^eth([0-9]+)$ ]] && ((BASH_REMATCH[1] < nics)) || usage_die "'$1': unknown NIC '$i' (hosts have $(nic_list "$nics")). Fix: name one of them"
  t_host=${h#node} t_nic=${i#eth}
}

cmd_shape() {
  (($# == 2)) || usage_die "shape HOST:NIC RATE[,LATENCY[,LOSS%]]. Fix: e.g. shape node1:eth0 2500mbit"
  require_up
  need_base_tools
  find_iproute
  parse_target "$1"
  parse_link "$2" shape
  [[ -z $link_latency && -z $link_loss ]] || check_kernel 1
  shape_link "$t_host" "$t_nic" "$link_rate" "$link_latency" "$link_loss"
  say "node$t_host:eth$t_nic shaped to $2 at both ends"
}

cmd_link() {
  (($# == 2)) && [[ $2 == up || $2 == down ]] || usage_die "link HOST:NIC up|down. Fix: e.g. link node1:eth0 down"
  require_up
  need_base_tools
  find_iproute
  parse_target "$1"
  set_nic_state "$t_host" "$t_nic" "$2"
  say "node$t_host:eth$t_nic is $2"
}
