#!/usr/bin/env python3
"""A stand-in for torchrun (python3 -m torch.distributed.run) where PyTorch is not installed,
with what a multi-host launch through tests/gpu/workload/onebox_torchrun.sh relies on: the c10d
rendezvous at --rdzv-endpoint HOST:PORT (hosted by the launcher on HOST, found by its host name
as torchrun finds it; the others connect through name resolution and the cluster's network),
node ranks from it, and --nproc-per-node workers with torchrun's variables (RANK, LOCAL_RANK,
WORLD_SIZE, LOCAL_WORLD_SIZE, GROUP_RANK, MASTER_ADDR, MASTER_PORT), in the caller's environment.
Exit status: the first failing worker's, as torchrun's. Test helper only."""
import argparse
import os
import signal
import socket
import subprocess
import sys
import time


def rendezvous(host, port, nnodes, timeout=60):
    """Returns this launcher's node rank (0 for the host of the endpoint)."""
    me = socket.gethostname()
    if me == host:
        srv = socket.create_server(("0.0.0.0", port), reuse_port=False)
        srv.settimeout(timeout)
        peers = []
        for _ in range(nnodes - 1):
            c, _ = srv.accept()
            peers.append((c.recv(256).decode(), c))
        for rank, (_, c) in enumerate(sorted(peers), start=1):
            c.sendall(str(rank).encode())
            c.close()
        return 0
    deadline = time.time() + timeout
    while True:
        try:
            c = socket.create_connection((host, port), timeout=5)
            break
        except OSError:
            if time.time() > deadline:
                raise
            time.sleep(0.2)
    c.sendall(me.encode())
    rank = int(c.recv(64).decode())
    c.close()
    return rank


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--nnodes", type=int, required=True)
    p.add_argument("--nproc-per-node", type=int, required=True)
    p.add_argument("--rdzv-backend", default="c10d")
    p.add_argument("--rdzv-endpoint", required=True)
    p.add_argument("--rdzv-id", default="none")
    p.add_argument("--max-restarts", type=int, default=0)
    p.add_argument("script")
    p.add_argument("args", nargs=argparse.REMAINDER)
    a = p.parse_args()
    host, port = a.rdzv_endpoint.rsplit(":", 1)
    node_rank = rendezvous(host, int(port), a.nnodes)
    procs = []
    # As torchrun: a SIGTERM to the launcher stops its workers, then the launcher.
    signal.signal(signal.SIGTERM, lambda *_: ([q.terminate() for q in procs], sys.exit(143)))
    for local in range(a.nproc_per_node):
        env = dict(os.environ, RANK=str(node_rank * a.nproc_per_node + local), LOCAL_RANK=str(local),
                   WORLD_SIZE=str(a.nnodes * a.nproc_per_node), LOCAL_WORLD_SIZE=str(a.nproc_per_node),
                   GROUP_RANK=str(node_rank), MASTER_ADDR=host, MASTER_PORT=str(int(port) + 1),
                   TORCHELASTIC_RUN_ID=a.rdzv_id)
        procs.append(subprocess.Popen([sys.executable, a.script] + a.args, env=env))
    codes = [q.wait() for q in procs]
    sys.exit(next((c for c in codes if c != 0), 0))


if __name__ == "__main__":
    main()
