#!/usr/bin/env python3
"""A CPU job for the multi-host launcher test: each worker appends one line to OUT (host, ranks,
its CUDA_VISIBLE_DEVICES, the caller's CCTUNE_PROFILE), then the workers meet as a process group
would bootstrap: rank 0 listens on MASTER_ADDR:MASTER_PORT and every other rank connects to it
across the hosts. --fail-on HOST makes the workers of that host exit 3 first.
  dummy_job.py OUT [--fail-on HOST]"""
import os
import socket
import sys
import time

out = sys.argv[1]
fail_on = sys.argv[3] if sys.argv[2:3] == ["--fail-on"] else None
host = socket.gethostname()
rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
if host == fail_on:
    sys.exit(3)
with open(out, "a") as f:
    f.write(f"{host} rank={rank} local={os.environ['LOCAL_RANK']} world={world} "
            f"cvd={os.environ.get('CUDA_VISIBLE_DEVICES', '-')} profile={os.environ.get('CCTUNE_PROFILE', '-')}\n")
addr, port = os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"])
if rank == 0:
    srv = socket.create_server(("0.0.0.0", port))
    srv.settimeout(120)  # a failing host's peers are stopped by the launcher well before
    heard = set()
    while len(heard) < world - 1:
        c, _ = srv.accept()
        heard.add(int(c.recv(16).decode()))
        c.close()
    with open(out, "a") as f:
        f.write(f"rank 0 heard {sorted(heard)}\n")
else:
    deadline = time.time() + 120
    while True:
        try:
            c = socket.create_connection((addr, port), timeout=5)
            break
        except OSError:
            if time.time() > deadline:
                raise
            time.sleep(0.2)
    c.sendall(str(rank).encode())
    c.close()
