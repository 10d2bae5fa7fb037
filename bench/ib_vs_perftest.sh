#!/usr/bin/env bash
# cctune's ibverbs probe side by side with perftest (ib_write_bw, ib_write_lat) on one RDMA
# device of this host, with the same message size and count, window, QPs and latency
# message, alternating the two tools; prints medians and the ratio cctune / perftest.
#   bench/ib_vs_perftest.sh CCTUNE [DEVICE] [SIZE_BYTES] [MESSAGES] [REPEATS]
# Both sides of each tool run here on DEVICE (default: the first active one), so the
# traffic loops back through that device: what this compares is the two tools'
# measurements of one path, not a fabric. Inside tools/rxe-vm.sh it runs on soft-RoCE in
# an emulated VM: a check that both tools measure the same thing, not a speed figure.
set -euo pipefail
cctune=${1:?usage: bench/ib_vs_perftest.sh CCTUNE [DEVICE] [SIZE_BYTES] [MESSAGES] [REPEATS]}
dev=${2:-$(ls /sys/class/infiniband 2>/dev/null | head -n 1)}
size=${3:-65536} iters=${4:-2000} repeats=${5:-3}
window=128 lat_iters=1000 lat_bytes=2 port=18515
[[ -n $dev ]] || { echo "ib_vs_perftest: no RDMA device (/sys/class/infiniband is empty)"; exit 77; }
for t in ib_write_bw ib_write_lat mpirun python3; do
  command -v $t >/dev/null || { echo "ib_vs_perftest: $t not found (perftest, openmpi-bin, python3)"; exit 77; }
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

# RoCE: the IPv4-mapped RoCE v2 GID, which cctune picks too (perftest's -x); none on InfiniBand.
gid_opt=()
ports=/sys/class/infiniband/$dev/ports/1
if [[ $(cat "$ports/link_layer") == Ethernet ]]; then
  for g in "$ports"/gids/*; do
    i=${g##*/}
    [[ $(cat "$g") == 0000:0000:0000:0000:0000:ffff:* && $(cat "$ports/gid_attrs/types/$i" 2>/dev/null) == *v2* ]] &&
      { gid_opt=(-x "$i"); break; }
  done
fi
common=(-d "$dev" -i 1 "${gid_opt[@]}" -F -p "$port")

# perftest: server in the background, client to localhost; the client's last result line.
perftest() {  # perftest TOOL ARGS... -> result line
  local tool=$1; shift
  "$tool" "${common[@]}" "$@" > "$work/server.txt" 2>&1 &
  local server=$!
  sleep 1
  "$tool" "${common[@]}" "$@" localhost > "$work/client.txt" 2>&1 || { cat "$work/client.txt" >&2; return 1; }
  wait "$server" || true
  awk '$1 ~ /^[0-9]+$/ && NF >= 5 {line=$0} END {print line}' "$work/client.txt"
}

echo "# $dev ${gid_opt[*]}: $size B x $iters messages, window $window, 1 QP; latency $lat_bytes B x $lat_iters"
for r in $(seq 1 "$repeats"); do
  # ib_write_bw columns: #bytes #iterations BW_peak[Gb/s] BW_average[Gb/s] MsgRate
  bw=$(perftest ib_write_bw -s "$size" -n "$iters" -q 1 -t "$window" --report_gbits)
  # ib_write_lat columns: #bytes #iterations t_min t_max t_typical t_avg t_stdev p99 p99.9
  lat=$(perftest ib_write_lat -s "$lat_bytes" -n "$lat_iters")
  echo "perftest $r: bw [$bw] lat [$lat]"
  echo "$bw" | awk '{print "perftest avg_Gbps", $4}' >> "$work/values"
  echo "$lat" | awk '{print "perftest typical_us", $5; print "perftest min_us", $3}' >> "$work/values"

  mpirun --oversubscribe --bind-to none -np 2 "$cctune" probe --probe ib --ib-dev "$dev:1" -b "$size" -e "$size" \
    -n "$iters" --window "$window" --qps 1 --lat-iters "$lat_iters" --lat-bytes "$lat_bytes" -o "$work/net.json" > /dev/null
  python3 - "$work/net.json" "$r" >> "$work/values" <<'EOF'
import json, sys
p = json.load(open(sys.argv[1]))["pairs"][0]
bw, lat = p["bandwidth"][-1], p["latency"]
print(f"cctune avg_Gbps {bw['avg_Gbps']}\ncctune typical_us {lat['typical_us']}\ncctune min_us {lat['min_us']}")
print(f"cctune {sys.argv[2]}: {bw['avg_Gbps']:.3f} Gb/s, latency typical {lat['typical_us']:.2f} us", file=sys.stderr)
EOF
done

python3 - "$work/values" <<'EOF'
import statistics, sys
v = {}
for line in open(sys.argv[1]):
    tool, metric, value = line.split()
    v.setdefault((tool, metric), []).append(float(value))
print(f"{'metric':<12} {'perftest':>10} {'cctune':>10} {'ratio':>7}   (medians; ratio = cctune / perftest)")
for metric in ("avg_Gbps", "typical_us", "min_us"):
    p, c = statistics.median(v[("perftest", metric)]), statistics.median(v[("cctune", metric)])
    print(f"{metric:<12} {p:>10.3f} {c:>10.3f} {c / p:>7.3f}")
EOF
