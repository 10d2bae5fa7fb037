# `up`: check every input first, then the machine, then build the cluster, recording each piece
# in the state directory as it is made. Any failure or signal on the way removes what was made.
# shellcheck shell=bash

parse_up() {
  hosts=2 nics=1 gpus_per_host=auto link=10gbit mtu=9000 slots= with_slurm=0 slow=() cpus_per_host=auto share_gpus=0
  while (($#)); do
    case $1 in
      --hosts|--nics|--gpus-per-host|--link|--slow|--mtu|--slots|--cpus-per-host)
        [[ $# -ge 2 ]] || usage_die "$1 needs a value. Fix: see --help"
        case $1 in
          --hosts) hosts=$2 ;; --nics) nics=$2 ;; --gpus-per-host) gpus_per_host=$2 ;; --link) link=$2 ;;
          --slow) slow+=("$2") ;; --mtu) mtu=$2 ;; --slots) slots=$2 ;; --cpus-per-host) cpus_per_host=$2 ;;
        esac
        shift 2 ;;
      --slurm) with_slurm=1; shift ;;
      --share-gpus) share_gpus=1; shift ;;
      *) usage_die "up: unknown option '$1'. Fix: see onebox-cluster.sh --help" ;;
    esac
  done
  [[ $hosts =~ ^[0-9]+$ ]] && ((hosts >= 1 && hosts <= 64)) \
    || usage_die "--hosts '$hosts': a cluster has 1 to 64 hosts. Fix: e.g. --hosts 2"
  [[ $nics =~ ^[0-9]+$ ]] && ((nics >= 1 && nics <= 8)) || usage_die "--nics '$nics': 1 to 8 NICs per host. Fix: e.g. --nics 2"
  [[ $mtu =~ ^[0-9]+$ ]] && ((mtu >= 1280 && mtu <= 65535)) || usage_die "--mtu '$mtu': 1280 to 65535 bytes. Fix: e.g. --mtu 9000"
  [[ -z $slots || ( $slots =~ ^[0-9]+$ && $slots -ge 1 ) ]] || usage_die "--slots '$slots': a positive number. Fix: e.g. --slots 2"
  [[ $cpus_per_host == auto || $cpus_per_host =~ ^[0-9]+$ ]] || usage_die "--cpus-per-host '$cpus_per_host': a number (0: all hosts share every CPU). Fix: e.g. --cpus-per-host 8"
  [[ $gpus_per_host == auto || $gpus_per_host =~ ^[0-9]+$ ]] || usage_die "--gpus-per-host '$gpus_per_host': a number. Fix: e.g. --gpus-per-host 1"
  parse_link "$link" --link
  base_rate=$link_rate base_latency=$link_latency base_loss=$link_loss
  need_netem=0
  if [[ -n $base_latency || -n $base_loss ]]; then need_netem=1; fi
  local s target h i
  for s in "${slow[@]+"${slow[@]}"}"; do
    [[ $s == *:*=* ]] || usage_die "--slow '$s': HOST:NIC=RATE[,LATENCY[,LOSS%]]. Fix: e.g. --slow node1:eth0=2500mbit"
    target=${s%%=*} h=${target%%:*} i=${target#*:}
    [[ $h =~ ^node([0-9]+)$ ]] && ((BASH_REMATCH[1] < hosts)) \
      || usage_die "--slow '$s': unknown host '$h' (this cluster: node0..node$((hosts - 1))). Fix: name one of them"
    [[ $i =~ ^eth([0-9]+)$ ]] && ((BASH_REMATCH[1] < nics)) \
      || usage_die "--slow '$s': unknown NIC '$i' (hosts have $(nic_list "$nics")). Fix: name one of them"
    parse_link "${s#*=}" --slow
    if [[ -n $link_latency || -n $link_loss ]]; then need_netem=1; fi
  done
}

# The GPUs each host sees: G per host, host h the h-th slice (CUDA_VISIBLE_DEVICES). auto: the
# machine's GPUs split evenly, or none of this when it has none (CUDA_VISIBLE_DEVICES unset).
# ONEBOX_TEST_MACHINE_GPUS: tests of the split on machines without GPUs (CI) say how many there are.
machine_gpus() {
  if [[ -n ${ONEBOX_TEST_MACHINE_GPUS:-} ]]; then echo "$ONEBOX_TEST_MACHINE_GPUS"; return; fi
  command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || echo 0
}
plan_gpus() {
  local total; total=$(machine_gpus)
  if ((share_gpus)); then
    # Test mode: every host sees the machine's GPUs (as the shared-GPU mode's workers share one):
    # NCCL runs across hosts on a one-GPU machine. Functional, never performance of the GPUs; a
    # link far slower than a GPU (25 Gb/s is 3 GB/s) is still the link.
    ((total > 0)) || die "--share-gpus: this machine has no GPU. Fix: drop --share-gpus"
    gpus_per_host=$total
  elif [[ $gpus_per_host == auto ]]; then
    gpus_per_host=$((total / hosts))
    ((total > 0 && gpus_per_host == 0)) && die "$total GPU(s) cannot be split over $hosts hosts. Fix: --gpus-per-host 0 (hosts without GPUs) or fewer --hosts"
    ((total == 0)) && gpus_per_host=
  elif ((gpus_per_host * hosts > total)); then
    die "--gpus-per-host $gpus_per_host x $hosts hosts needs $((gpus_per_host * hosts)) GPUs; this machine has $total. Fix: fewer --hosts or --gpus-per-host"
  fi
  [[ -n $slots ]] || slots=$(( ${gpus_per_host:-0} > 0 ? gpus_per_host : 1 ))
}
# The CPUs each host runs on: C per host, host h the h-th slice of the machine's CPUs (taskset on
# everything started in it: run, the agent, slurmd), so that each host's launcher binds its ranks
# to CPUs of its own, as on separate machines. auto: the machine's CPUs split evenly. Where they
# cannot be split (fewer CPUs than hosts, or 0) the hosts share them all. Either way Open MPI binds
# nothing (cluster_env): each host's mpirun would bind its first rank to the same core 0, and two
# ranks polling one core read 12 ms for an 8-byte AllReduce here (51 us unbound).
plan_cpus() {
  mapfile -t machine_cpus < <(taskset -cp $$ 2>/dev/null | sed 's/.*: //' | tr ',' '\n' | awk -F- '{ for (c = $1; c <= ($2 == "" ? $1 : $2); c++) print c }')
  local n=${#machine_cpus[@]}
  command -v taskset >/dev/null || n=0
  # auto: at least 2 CPUs a host, or shared: a host of one CPU shares it with whatever else runs on
  # the machine (a 2-core CI box: an 8-byte AllReduce read 4.9 ms pinned, 51 us shared).
  if [[ $cpus_per_host == auto ]]; then cpus_per_host=$((n / hosts)); ((cpus_per_host >= 2)) || cpus_per_host=0; fi
  ((cpus_per_host * hosts <= n)) || die "--cpus-per-host $cpus_per_host x $hosts hosts needs $((cpus_per_host * hosts)) CPUs; this process may use $n. Fix: fewer, or --cpus-per-host 0 (shared)"
}
host_cpus() {  # host index -> its CPU list ("" when the hosts share them)
  local c s=
  ((cpus_per_host > 0)) || return 0
  for ((c = $1 * cpus_per_host; c < ($1 + 1) * cpus_per_host; c++)); do s+=${s:+,}${machine_cpus[c]}; done
  echo "$s"
}

host_gpus() {  # host index -> its CUDA_VISIBLE_DEVICES list
  local g s= first=$(($1 * gpus_per_host))
  ((share_gpus)) && first=0
  for ((g = first; g < first + gpus_per_host; g++)); do s+=${s:+,}$g; done
  echo "$s"
}

write_host_files() {
  local h i
  mkdir -p "$state"/{ns,log,tmp,etc,hosts,bin}
  printf '%s\n' "${host_names[@]}" > "$state/hosts.list"
  printf 'hosts=%s\nnics=%s\nmtu=%s\ngpus_per_host=%s\nslots=%s\nslurm=%s\nlink=%s\niproute=%s\n' \
    "$hosts" "$nics" "$mtu" "${gpus_per_host:-}" "$slots" "$with_slurm" "$link" "$(iproute_root)" > "$state/cluster.conf"
  {
    echo "# one-box cluster '$name': bind-mounted on every host's /etc/hosts"
    echo "127.0.0.1 localhost"
    for ((h = 0; h < hosts; h++)); do
      echo "$(nic_address "$h" 0) node$h node$h-eth0"
      for ((i = 1; i < nics; i++)); do echo "$(nic_address "$h" "$i") node$h-eth$i"; done
    done
  } > "$state/etc/hosts"
  for ((h = 0; h < hosts; h++)); do echo "node$h slots=$slots"; done > "$state/hostfile"
  printf '#!/bin/sh\nexec %q --state %q "$@"\n' "$onebox_dir/onebox-rsh" "$state" > "$state/bin/onebox-rsh"
  chmod 0755 "$state/bin/onebox-rsh"
  : > "$state/links.tsv"
  for ((h = 0; h < hosts; h++)); do
    {
      cluster_env
      echo "ONEBOX_HOST=node$h"
      if ((cpus_per_host > 0)); then echo "ONEBOX_CPUS=$(host_cpus "$h")"; fi
      # Open MPI binds a host's first rank to the machine's core 0, whatever CPUs the host has
      # (affinity is no cgroup): unbound, ranks keep the host's CPUs their daemon inherited.
      echo "OMPI_MCA_hwloc_base_binding_policy=none"
      if [[ -n ${gpus_per_host:-} ]]; then echo "CUDA_VISIBLE_DEVICES=$(host_gpus "$h")"; fi
    } > "$state/hosts/node$h.env"
  done
}

# What every host's environment holds (and `env` prints): the launcher's settings of the cluster.
cluster_env() {
  echo "ONEBOX_CLUSTER=$name"
  echo "ONEBOX_STATE=$state"
  echo "ONEBOX_HOSTFILE=$state/hostfile"
  # The rsh launcher, whatever the machine's image chose: a container's OMPI_MCA_plm=isolated
  # (the lent GPU machines set it) launches on the local node only, so a 2-host mpirun ran 1 rank.
  echo "OMPI_MCA_plm=rsh"
  echo "OMPI_MCA_plm_rsh_agent=$state/bin/onebox-rsh"
  # Open MPI's TCP traffic and its daemons' wiring on eth0's subnet, never loopback. Only one
  # subnet: Open MPI 4.1's TCP BTL over several subnets can hang at connect (a sweep over 3 hosts
  # x 2 NICs here: "connect() to 10.101.0.1:1024 failed: Operation now in progress", as in
  # open-mpi/ompi#4963). --mca btl_tcp_if_include on mpirun's command line overrides it.
  echo "OMPI_MCA_btl_tcp_if_include=$(nic_address 0 0 | sed 's/\.[0-9]*$/.0/')/24"
  echo "OMPI_MCA_oob_tcp_if_include=$(nic_address 0 0 | sed 's/\.[0-9]*$/.0/')/24"
  if [[ $with_slurm == 1 ]]; then slurm_env; fi
  return 0
}

cmd_up() {
  parse_up "$@"
  need_base_tools
  find_iproute
  check_kernel "$need_netem"
  plan_gpus
  plan_cpus
  ensure_root_dir
  if [[ -e $state ]]; then
    if [[ -s $state/hosts.list ]] && holder_pid node0 >/dev/null; then
      die "cluster '$name' is already up ($state). Fix: onebox-cluster.sh --name $name down first, or another --name"
    fi
    die "cluster '$name' has a state directory from an earlier run that is not up ($state). Fix: onebox-cluster.sh --name $name down"
  fi
  mkdir -m 0755 "$state" || die "cannot create $state (another up of '$name' at the same time?). Fix: another --name"
  trap 'up_failed $?' EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  host_names=()
  local h i
  for ((h = 0; h < hosts; h++)); do host_names+=("node$h"); done
  write_host_files
  make_switch "$nics" "$mtu"
  for ((h = 0; h < hosts; h++)); do make_host "$h" "$nics" "$mtu"; done
  for ((h = 0; h < hosts; h++)); do
    for ((i = 0; i < nics; i++)); do shape_link "$h" "$i" "$base_rate" "$base_latency" "$base_loss"; done
  done
  local s target
  for s in "${slow[@]+"${slow[@]}"}"; do
    target=${s%%=*}
    parse_link "${s#*=}" --slow
    h=${target%%:*} i=${target#*:}
    shape_link "${h#node}" "${i#eth}" "$link_rate" "$link_latency" "$link_loss"
  done
  if [[ $with_slurm == 1 ]]; then start_slurm "$hosts" "$(( $(nproc) > 8 ? $(nproc) : 8 ))"; fi
  trap - EXIT INT TERM
  local extra=
  if [[ $with_slurm == 1 ]]; then extra=", Slurm (slurmctld on node0)"; fi
  say "cluster '$name' up: $hosts host(s) x $nics NIC(s), links $link${slow[*]:+, slow: ${slow[*]}}, GPUs per host: ${gpus_per_host:-not set}, CPUs per host: $( ((cpus_per_host > 0)) && echo "$cpus_per_host" || echo "shared")$extra"
  say "use: $0 --name $name run node0 -- mpirun --host node0,node1 ...   (state: $state)"
}

up_failed() {
  local rc=$1
  trap - EXIT INT TERM
  ((rc == 0)) && return 0
  echo "onebox: up of '$name' failed (exit $rc); removing what it made" >&2
  teardown >/dev/null 2>&1 || true
  exit "$rc"
}
