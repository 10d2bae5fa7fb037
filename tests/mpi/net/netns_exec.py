#!/usr/bin/env python3
"""Run one MPI rank inside a network namespace: netns_exec.py [--hostname NAME] NETNS CMD ARGS...

mpirun (Open MPI 4.1) starts its ranks in its own namespace, and each rank reaches the
PMIx server over TCP loopback (PMIX_SERVER_URI*=...tcp4://127.0.0.1:PORT), which a
process in another network namespace cannot see. This wrapper listens on that same
127.0.0.1:PORT *inside* the target namespace, relays each connection to the real server
in mpirun's namespace, and runs the command in the target namespace. With --hostname, the
command also gets a UTS namespace of its own with that host name, so that each namespace is a
node of its own to tools that tell nodes apart by host name (cctune diagnose). Test helper only.
"""
import ctypes
import os
import re
import socket
import sys
import threading

CLONE_NEWNET = 0x40000000
CLONE_NEWUTS = 0x04000000
libc = ctypes.CDLL("libc.so.6", use_errno=True)


def setns(fd):
    if libc.setns(fd, CLONE_NEWNET) != 0:
        raise OSError(ctypes.get_errno(), "setns failed")


def relay(a, b):
    try:
        while True:
            data = a.recv(65536)
            if not data:
                break
            b.sendall(data)
    except OSError:
        pass
    finally:
        for s in (a, b):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def main():
    args = sys.argv[1:]
    hostname = None
    if args[:1] == ["--hostname"]:
        hostname, args = args[1], args[2:]
    netns, cmd = args[0], args[1:]
    uri = os.environ.get("PMIX_SERVER_URI4") or os.environ.get("PMIX_SERVER_URI3") or ""
    m = re.search(r"tcp4://127\.0\.0\.1:(\d+)", uri)
    if not m:
        sys.exit("netns_exec.py: no PMIX_SERVER_URI4 with a loopback address; run me under mpirun")
    port = int(m.group(1))
    home = os.open("/proc/self/ns/net", os.O_RDONLY)
    target = os.open(f"/var/run/netns/{netns}", os.O_RDONLY)
    setns(target)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(64)
    setns(home)

    pid = os.fork()
    if pid == 0:
        setns(target)
        if hostname:
            if libc.unshare(CLONE_NEWUTS) != 0:
                raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWUTS) failed")
            name = hostname.encode()
            if libc.sethostname(name, len(name)) != 0:
                raise OSError(ctypes.get_errno(), "sethostname failed")
        os.execvp(cmd[0], cmd)

    def accept_loop():
        while True:
            try:
                inner, _ = listener.accept()
            except OSError:
                return
            outer = socket.create_connection(("127.0.0.1", port))  # created in mpirun's namespace
            threading.Thread(target=relay, args=(inner, outer), daemon=True).start()
            threading.Thread(target=relay, args=(outer, inner), daemon=True).start()

    threading.Thread(target=accept_loop, daemon=True).start()
    _, status = os.waitpid(pid, 0)
    sys.exit(os.waitstatus_to_exitcode(status))


if __name__ == "__main__":
    main()
