# The cluster's network: one holder per host and one for the switch, K NICs per host joined
# on K bridges (one per NIC index: NIC i of every host shares bridge br<i>, its own subnet
# 10.(100+i).0.0/24), every link shaped at both ends.
# Needs: lib.sh sourced, $state, $name, IP/TC (find_iproute).
# shellcheck shell=bash

nic_address() { echo "10.$((100 + $2)).0.$(($1 + 1))"; }  # host index, NIC index
nic_list() { local i s=; for ((i = 0; i < $1; i++)); do s+=${s:+, }eth$i; done; echo "$s"; }  # "eth0, eth1"
switch_port() { echo "n$1e$2"; }  # the switch's end of host $1's NIC $2

# start_holder WHO HOSTNAME [HOSTS_FILE]: new namespaces held by tools/onebox/host-init.sh.
start_holder() {
  local who=$1 host=$2 hosts=${3:-} rec=$state/ns/$1 flags=(--net --uts)
  if [[ -n $hosts ]]; then flags+=(--mount --propagation slave); fi
  # setsid: the holder outlives `up` and no Ctrl-C in up's terminal reaches it; down ends it.
  setsid unshare "${flags[@]}" -- bash "$onebox_dir/host-init.sh" "$rec" "$host" $hosts ${hosts:+"$state/tmp/$who"} \
    >"$state/log/$who.holder.log" 2>&1 </dev/null &
  local pid=$! deadline=$((SECONDS + 20))
  echo "$pid" > "$rec.launched"   # for down, until the holder has recorded itself
  until [[ -e $rec.ready ]]; do
    kill -0 "$pid" 2>/dev/null || die "host $who: its namespaces could not be made ($(tail -1 "$state/log/$who.holder.log" 2>/dev/null)). Fix: see $state/log/$who.holder.log"
    ((SECONDS < deadline)) || die "host $who: its holder did not get ready in 20 s. Fix: see $state/log/$who.holder.log"
    sleep 0.05
  done
}

# shape WHO DEV RATE LATENCY LOSS: the egress of DEV. A host-to-host path crosses two links'
# egresses (the sender's host end, the receiver's switch end), so each end delays LATENCY/2:
# LATENCY is the one-way host-to-host latency. LOSS applies at each end (about 2x end to end).
# tbf: burst of 1 ms at the rate (at least 128 KiB, above one GSO packet, which tbf would
# otherwise cut up), and a queue of 20 ms.
shape() {
  local who=$1 dev=$2 rate=$3 lat=$4 loss=$5 burst
  burst=$(awk -v b="$(rate_bps "$rate")" 'BEGIN { x = b / 8 / 1000; printf "%.0f", (x < 131072 ? 131072 : x) }')
  tc_in "$who" qdisc del dev "$dev" root >/dev/null 2>&1 || true
  if [[ -n $lat || -n $loss ]]; then
    local netem=(netem limit 100000)
    if [[ -n $lat ]]; then netem+=(delay "$(awk -v u="$(latency_us "$lat")" 'BEGIN { printf "%.1fus", u / 2 }')"); fi
    if [[ -n $loss ]]; then netem+=(loss "$loss"); fi
    tc_in "$who" qdisc add dev "$dev" root handle 1: "${netem[@]}" || die "tc could not add netem on $dev of $who"
    tc_in "$who" qdisc add dev "$dev" parent 1:1 handle 10: tbf rate "$rate" burst "$burst" latency 20ms \
      || die "tc could not add tbf on $dev of $who"
  else
    tc_in "$who" qdisc add dev "$dev" root handle 10: tbf rate "$rate" burst "$burst" latency 20ms \
      || die "tc could not add tbf on $dev of $who"
  fi
}

# shape_link H I RATE LATENCY LOSS: both ends of host H's NIC I, and the record of it.
shape_link() {
  local h=$1 i=$2
  shape "node$h" "eth$i" "$3" "$4" "$5"
  shape switch "$(switch_port "$h" "$i")" "$3" "$4" "$5"
  local tmp=$state/links.tsv.tmp
  awk -v h="node$h" -v n="eth$i" -v r="$3" -v l="${4:--}" -v p="${5:--}" 'BEGIN { OFS = "\t" }
    $1 == h && $2 == n { $4 = r; $5 = l; $6 = p } { print }' "$state/links.tsv" > "$tmp" && mv "$tmp" "$state/links.tsv"
}

make_switch() {  # make_switch NICS MTU
  start_holder switch onebox-switch
  ip_in switch link set lo up
  local i
  for ((i = 0; i < $1; i++)); do
    ip_in switch link add "br$i" mtu "$2" type bridge || die "could not add bridge br$i"
    ip_in switch link set "br$i" up
  done
}

make_host() {  # make_host H NICS MTU
  local h=$1 nics=$2 mtu=$3 i port sw
  start_holder "node$h" "node$h" "$state/etc/hosts"
  ip_in "node$h" link set lo up
  sw=$(holder_pid switch)
  for ((i = 0; i < nics; i++)); do
    port=$(switch_port "$h" "$i")
    # Made inside the host with its peer placed straight into the switch: no interface ever
    # appears in the machine's own namespace, so names cannot collide with anything else.
    ip_in "node$h" link add name "eth$i" mtu "$mtu" type veth peer name "$port" mtu "$mtu" netns "$sw" \
      || die "could not add eth$i to node$h"
    ip_in "node$h" addr add "$(nic_address "$h" "$i")/24" dev "eth$i"
    ip_in switch link set "$port" master "br$i"
    ip_in switch link set "$port" up
    ip_in "node$h" link set "eth$i" up
    printf 'node%s\teth%s\t%s\t-\t-\t-\n' "$h" "$i" "$(nic_address "$h" "$i")" >> "$state/links.tsv"
  done
}

# set_nic_state H I up|down: a NIC going down (and back) on purpose; its link's far end sees it.
set_nic_state() { ip_in "node$1" link set "eth$2" "$3"; }
