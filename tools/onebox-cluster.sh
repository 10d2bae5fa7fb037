#!/usr/bin/env bash
# A cluster on one box: N hosts, each its own network and UTS namespace (host name nodeH, its own
# interfaces and addresses), K NICs each (eth0..eth{K-1}), NIC i of every host on bridge br<i> in
# a switch namespace, every link shaped with tc at both ends; launched as clusters are: mpirun
# through an rsh agent that enters a host, Slurm with one slurmd per host. docs/LAUNCHING.md,
# "A cluster on one box", says what it emulates and what it does not.
#
#   onebox-cluster.sh [--name NAME] up --hosts N [--nics K] [--gpus-per-host G] [--cpus-per-host C] [--link RATE[,LATENCY[,LOSS%]]]
#                     [--slow HOST:NIC=RATE[,LATENCY[,LOSS%]]]... [--mtu BYTES] [--slots S] [--slurm]
#                     [--share-gpus]   # test mode: every host sees all the machine's GPUs (a one-GPU machine)
#   onebox-cluster.sh [--name NAME] run HOST [--] CMD...   # CMD on HOST (node0 is the head node)
#   onebox-cluster.sh [--name NAME] status                 # hosts, links, daemons; exit 1 when broken
#   onebox-cluster.sh [--name NAME] env                    # exports for a shell: agent, SLURM_CONF, hostfile
#   onebox-cluster.sh [--name NAME] shape HOST:NIC RATE[,LATENCY[,LOSS%]]   # reshape a link, both ends
#   onebox-cluster.sh [--name NAME] link HOST:NIC up|down  # a NIC going down (and up) on purpose
#   onebox-cluster.sh [--name NAME] down                   # removes all that up made
#
# NAME (default: $ONEBOX_NAME, else "onebox") keeps clusters apart: state in $ONEBOX_ROOT/NAME
# (default /tmp/cctune-onebox/NAME). Addresses: NIC i of host h is 10.(100+i).0.(h+1)/24; node
# names resolve through a hosts file bind-mounted on each host's /etc/hosts. Needs root,
# unshare, nsenter, and ip/tc on PATH or ONEBOX_IPROUTE=DIR (tools/onebox-carry.sh prepares DIR).
set -eEuo pipefail
# A command failing where no check of ours caught it still ends in one line naming it.
trap 'echo "onebox: error: \"$BASH_COMMAND\" failed (exit $?, ${BASH_SOURCE[0]##*/}:$LINENO)" >&2' ERR
onebox_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/onebox" && pwd)
source "$onebox_dir/lib.sh"
source "$onebox_dir/kernel.sh"
source "$onebox_dir/net.sh"
source "$onebox_dir/../slurm_conf.sh"
source "$onebox_dir/slurm.sh"
source "$onebox_dir/up.sh"
source "$onebox_dir/down.sh"
source "$onebox_dir/commands.sh"

usage() { sed -n '8,15p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

name=${ONEBOX_NAME:-onebox}
args=()
while (($#)); do
  case $1 in
    --name) [[ -n ${2:-} ]] || usage_die "--name needs a value. Fix: --name NAME"; name=$2; shift 2 ;;
    --name=*) name=${1#--name=}; shift ;;
    --) args+=("$@"); break ;;
    *) args+=("$1"); shift ;;
  esac
done
set -- "${args[@]+"${args[@]}"}"
valid_name "$name" || usage_die "--name '$name': letters, digits, '-' and '_', at most 32. Fix: e.g. --name ci$$"
state=$(state_of "$name")

cmd=${1:-}
(($#)) && shift
case $cmd in
  up) cmd_up "$@" ;;
  down) cmd_down "$@" ;;
  status) cmd_status "$@" ;;
  run) cmd_run "$@" ;;
  env) cmd_env "$@" ;;
  shape) cmd_shape "$@" ;;
  link) cmd_link "$@" ;;
  -h|--help|help) usage ;;
  '') usage_die "no command. Fix: one of up, run, status, env, shape, link, down (--help lists them)" ;;
  *) usage_die "unknown command '$cmd'. Fix: one of up, run, status, env, shape, link, down (--help)" ;;
esac
