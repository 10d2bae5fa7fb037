#!/usr/bin/env bash
# Unshaped loopback: cctune's TCP probe next to iperf3's single stream, alternating
# runs in the same session, and the ratio of their means.
# Usage: bench/net_tcp_vs_iperf3.sh [CCTUNE] [REPEATS]   (defaults: build/cctune, 3)
set -euo pipefail
cctune=${1:-build/cctune}
repeats=${2:-3}
seconds=${SECONDS_PER_RUN:-5}
ifname=lo
addr=127.0.0.1
port=$((20000 + $$ % 20000))
work=$(mktemp -d)
iperf_pid=
cleanup() { [[ -n $iperf_pid ]] && kill "$iperf_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

command -v iperf3 >/dev/null || { echo "iperf3 not found (apt-get install iperf3)"; exit 1; }
iperf3 -s -B "$addr" -p "$port" >/dev/null 2>&1 &
iperf_pid=$!
sleep 0.5

# --bind-to none: iperf3's two processes are not pinned either; Open MPI pins each of
# two ranks to one core by default, which on a busy or small machine costs up to half
# the loopback rate (measured: 14.3 vs 21.8 Gb/s on a 2-core VM).
# Size cctune's run to last about as long as iperf3's: calibrate with a short run.
run_cctune() {  # $1 = iterations; prints avg Gb/s
  mpirun --allow-run-as-root --oversubscribe --bind-to none --mca btl self,tcp -np 2 "$cctune" probe --probe tcp \
    --socket-ifname "$ifname" -b 1M -e 1M -n "$1" -w 50 --lat-iters 100 -o "$work/net.json" >/dev/null
  python3 -c "import json; print(json.load(open('$work/net.json'))['pairs'][0]['bandwidth'][0]['avg_Gbps'])"
}
cal=$(run_cctune 2000)
iters=$(python3 -c "print(max(2000, int($cal * 1e9 / 8 * $seconds / 1048576)))")

# The same write size on both sides: iperf3's default is 128 KiB, cctune's messages are 1 MiB,
# and on an idle 2-core VM that alone made iperf3 33 Gb/s against 42 Gb/s with -l 1M.
run_iperf3() {
  iperf3 -c "$addr" -p "$port" -P 1 -l 1M -t "$seconds" -J >"$work/iperf.json"
  python3 -c "import json; print(json.load(open('$work/iperf.json'))['end']['sum_received']['bits_per_second'] / 1e9)"
}

echo "# loopback ($ifname), single TCP stream, ${seconds} s per run; cctune: 1 MiB messages x $iters"
echo "# run  iperf3_Gbps  cctune_Gbps  ratio"
ip=(); cc=()
for ((i = 1; i <= repeats; ++i)); do
  a=$(run_iperf3); b=$(run_cctune "$iters")
  ip+=("$a"); cc+=("$b")
  python3 -c "print(f'{$i:5d} {$a:12.3f} {$b:12.3f} {$b / $a:6.3f}')"
done
python3 - "${ip[*]}" "${cc[*]}" <<'PY'
import statistics, sys
ip = [float(x) for x in sys.argv[1].split()]
cc = [float(x) for x in sys.argv[2].split()]
m_ip, m_cc = statistics.mean(ip), statistics.mean(cc)
print(f"mean iperf3 {m_ip:.3f} Gb/s, cctune {m_cc:.3f} Gb/s, ratio cctune/iperf3 = {m_cc / m_ip:.3f}"
      f" ({'within' if abs(m_cc / m_ip - 1) <= 0.10 else 'NOT within'} 10%)")
PY
