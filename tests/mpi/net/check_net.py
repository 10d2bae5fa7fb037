#!/usr/bin/env python3
"""Checks a `net` section (cctune probe -o FILE) measured over soft-RoCE against what the
device really is (sysfs) and against the probe's own definitions. Exit 1 with the reasons."""
import argparse
import json
import math
import sys
from pathlib import Path


def sysfs_gid(device, port, index):
    return Path(f"/sys/class/infiniband/{device}/ports/{port}/gids/{index}").read_text().strip()


def sysfs_gid_type(device, port, index):
    return Path(f"/sys/class/infiniband/{device}/ports/{port}/gid_attrs/types/{index}").read_text().strip()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--transport", required=True)
    ap.add_argument("--pairs", type=int, required=True)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--sizes", required=True, help="bandwidth sizes in bytes, comma-separated")
    ap.add_argument("--qps", type=int, default=1)
    ap.add_argument("--lat-bytes", type=int, default=2)
    ap.add_argument("--lat-method", default="rdma_write_poll_last_byte")
    a = ap.parse_args()
    net = json.loads(Path(a.file).read_text())
    problems = []

    def expect(cond, what):
        if not cond:
            problems.append(what)

    expect(net.get("schema") == "cctune.net/1", f"schema {net.get('schema')}")
    expect(net.get("transport") == a.transport, f"transport {net.get('transport')}, expected {a.transport}")
    expect(net["schedule"]["rounds"] == a.rounds, f"rounds {net['schedule']['rounds']}, expected {a.rounds}")
    for r, rnd in enumerate(net["schedule"]["round_pairs"]):
        ranks = [x for p in rnd["pairs"] for x in p]
        expect(len(ranks) == len(set(ranks)), f"round {r} uses a rank twice: {rnd['pairs']}")

    for e in net["endpoints"]:
        dev, port, idx = e["device"], e["port"], e["gid_index"]
        expect(e["link_layer"] == "Ethernet", f"rank {e['rank']}: link_layer {e['link_layer']}")
        expect(e["gid_type"] == "RoCE v2", f"rank {e['rank']}: gid_type {e['gid_type']}")
        # The chosen GID must be the one carrying the IPv4 address (::ffff:a.b.c.d), as NCCL and perftest pick.
        gid = sysfs_gid(dev, port, idx)
        expect(gid.startswith("0000:0000:0000:0000:0000:ffff:"), f"rank {e['rank']}: GID {idx} is {gid}, not IPv4-mapped")
        expect("v2" in sysfs_gid_type(dev, port, idx), f"rank {e['rank']}: sysfs says GID {idx} is {sysfs_gid_type(dev, port, idx)}")
        expect(e["mtu_bytes"] in (256, 512, 1024, 2048, 4096), f"rank {e['rank']}: mtu {e['mtu_bytes']}")
        expect(e["buffer"] == "host", f"rank {e['rank']}: buffer {e['buffer']}")

    pairs = net["pairs"]
    expect(len(pairs) == a.pairs, f"{len(pairs)} pairs, expected {a.pairs}")
    sizes = [int(s) for s in a.sizes.split(",")]
    iters = net["options"]["iterations"]
    for p in pairs:
        name = f"pair {p['initiator']}->{p['responder']}"
        expect(p["error"] is None and "responder_error" not in p, f"{name}: error {p.get('error')} {p.get('responder_error')}")
        if p["error"] is not None:
            continue
        expect(p["transport"] == a.transport, f"{name}: transport {p['transport']}")
        expect([b["size_bytes"] for b in p["bandwidth"]] == sizes, f"{name}: sizes {[b['size_bytes'] for b in p['bandwidth']]}")
        for b in p["bandwidth"]:
            expect(b["iterations"] == iters * a.qps, f"{name}: {b['iterations']} writes, expected {iters} x {a.qps} QPs")
            expect(b["avg_GBps"] > 0 and b["time_s"] > 0, f"{name}: no bandwidth at {b['size_bytes']}")
            # The definitions: avg = bytes / (last completion - first post); peak >= avg; Gb/s = 8 x GB/s.
            want = b["size_bytes"] * b["iterations"] / b["time_s"] / 1e9
            expect(math.isclose(b["avg_GBps"], want, rel_tol=1e-6), f"{name}: avg_GBps {b['avg_GBps']} != bytes/time {want}")
            expect(b["peak_GBps"] >= b["avg_GBps"], f"{name}: peak below average")
            expect(math.isclose(b["avg_Gbps"], 8 * b["avg_GBps"], rel_tol=1e-9), f"{name}: Gb/s is not 8 x GB/s")
        lat = p["latency"]
        expect(lat["size_bytes"] == a.lat_bytes, f"{name}: latency size {lat['size_bytes']}")
        expect(lat["iterations"] == net["options"]["latency_iterations"], f"{name}: latency iterations {lat['iterations']}")
        order = [lat["min_us"], lat["typical_us"], lat["p99_us"], lat["p99_9_us"], lat["max_us"]]
        expect(order[0] > 0 and order == sorted(order), f"{name}: latency order min<=typical<=p99<=p99.9<=max broken: {order}")
        expect(p.get("latency_method") == a.lat_method, f"{name}: latency_method {p.get('latency_method')}")
    s = net["summary"]
    expect(s["pairs_measured"] == a.pairs and s["pairs_failed"] == 0, f"summary: {s['pairs_measured']} measured, {s['pairs_failed']} failed")

    if problems:
        print(f"{a.file}: " + "; ".join(problems))
        return 1
    p0 = pairs[0]
    print(f"{a.file}: ok ({len(pairs)} pairs; pair 0: {p0['bandwidth'][-1]['avg_Gbps']:.3f} Gb/s at "
          f"{p0['bandwidth'][-1]['size_bytes']} B, latency typical {p0['latency']['typical_us']:.1f} us)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
