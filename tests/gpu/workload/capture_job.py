"""One rank of a small real PyTorch job whose NCCL calls are captured for issue #25's importers.

Run by capture_workloads.sh: two processes share GPU 0, each its own NCCL host (NCCL_HOSTID),
so NCCL joins them over its socket transport. Workloads (argv[1]):
  ddp       a few DistributedDataParallel steps of a small MLP (gradient buckets)
  fsdp      an FSDP-style pattern: all_gather_into_tensor of parameter shards, then
            reduce_scatter_tensor of gradient shards, per layer and step
  alltoall  all_to_all_single of equal splits
  grouped   calls NCCL receives inside one ncclGroupStart/End: per step, three all_reduces of
            different sizes under PyTorch's coalescing manager, then a batch_isend_irecv ring
            exchange (one send and one recv per rank), then one all_reduce on its own
  switched  recording switched off for two warm-up steps and on again from inside the job,
            through the profiler half's cctune_profiler_events() (ctypes, the copy NCCL loaded);
            the job counts only what it wants recorded
Each rank counts the collectives it issues itself (counts.rank<R>.json: per (op, dtype, numel,
bytes) the number of calls and the steps), so a capture can be checked against the job's own
figures. At the end it dumps PyTorch's flight recorder as JSON (flight.rank<R>.json) when this
PyTorch can. Everything lands in argv[2].
"""
import ctypes
import json
import os
import sys
import time

import torch
import torch.distributed as dist

# CAPTURE_STEPS: the production watch judges a shape from 8 timed calls on, so watch_no_rules.sh
# runs more steps than the capture checks need.
STEPS = int(os.environ.get("CAPTURE_STEPS", "4"))


class Counter:
    def __init__(self):
        self.calls = {}

    def add(self, op, tensor_in, step, out_numel=None):
        numel = tensor_in.numel() if out_numel is None else out_numel
        key = (op, str(tensor_in.dtype).replace("torch.", ""), tensor_in.numel(), numel)
        entry = self.calls.setdefault(key, {"calls": 0, "steps": set()})
        entry["calls"] += 1
        entry["steps"].add(step)

    def to_json(self):
        rows = []
        for (op, dtype, numel_in, numel_out), e in sorted(self.calls.items()):
            rows.append({"op": op, "dtype": dtype, "input_numel": numel_in, "output_numel": numel_out,
                         "calls": e["calls"], "steps": sorted(e["steps"])})
        return rows


def ddp(rank, world, dev, counter):
    model = torch.nn.Sequential(torch.nn.Linear(1024, 2048), torch.nn.ReLU(), torch.nn.Linear(2048, 1024),
                                torch.nn.ReLU(), torch.nn.Linear(1024, 10)).to(dev)
    # Small buckets so one step issues several allreduces of different sizes; no broadcast of
    # parameters at construction, so every call the job makes is counted by the hook below.
    ddp_model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[dev.index], bucket_cap_mb=4,
                                                          init_sync=False)
    step_box = [0]

    def counting_allreduce(_state, bucket):
        buf = bucket.buffer()
        buf.div_(world)
        counter.add("all_reduce", buf, step_box[0])
        return dist.all_reduce(buf, async_op=True).get_future().then(lambda fut: fut.value()[0])

    ddp_model.register_comm_hook(None, counting_allreduce)
    opt = torch.optim.SGD(ddp_model.parameters(), lr=0.01)
    for step in range(STEPS):
        step_box[0] = step
        x = torch.randn(64, 1024, device=dev)
        y = torch.randint(0, 10, (64,), device=dev)
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(ddp_model(x), y)
        loss.backward()
        opt.step()
        torch.cuda.synchronize(dev)
    # DDP's C++ reducer also issues calls this hook never sees: after the first step it rebuilds
    # its buckets and broadcasts their layout (two small int32 broadcasts in PyTorch 2.11).
    return {"params": sum(p.numel() for p in model.parameters()),
            "not_counted": "the reducer's bucket-rebuild broadcasts after step 0 (C++, not through the hook)"}


def fsdp(rank, world, dev, counter):
    shard_numels = [262144, 65536, 4096]  # three "layers", per-rank shard sizes
    for step in range(STEPS):
        for numel in shard_numels:
            shard = torch.randn(numel, device=dev, dtype=torch.bfloat16)
            full = torch.empty(numel * world, device=dev, dtype=torch.bfloat16)
            dist.all_gather_into_tensor(full, shard)
            counter.add("all_gather_into_tensor", shard, step, out_numel=full.numel())
        for numel in reversed(shard_numels):
            grad = torch.randn(numel * world, device=dev, dtype=torch.float32)
            out = torch.empty(numel, device=dev, dtype=torch.float32)
            dist.reduce_scatter_tensor(out, grad)
            counter.add("reduce_scatter_tensor", grad, step, out_numel=out.numel())
        torch.cuda.synchronize(dev)
    return {"shard_numels": shard_numels}


def alltoall(rank, world, dev, counter):
    for step in range(STEPS):
        src = torch.arange(65536 * world, device=dev, dtype=torch.float32) + rank
        dst = torch.empty_like(src)
        dist.all_to_all_single(dst, src)
        counter.add("all_to_all_single", src, step)
        torch.cuda.synchronize(dev)
    return {}


def grouped(rank, world, dev, counter):
    sizes = [131072, 32768, 8192]
    peer_send, peer_recv = (rank + 1) % world, (rank - 1) % world
    for step in range(STEPS):
        bufs = [torch.randn(n, device=dev) for n in sizes]
        with dist._coalescing_manager(device=dev, async_ops=True) as cm:
            for b in bufs:
                dist.all_reduce(b)
                counter.add("all_reduce", b, step)
        cm.wait()
        send = torch.full((16384,), float(rank), device=dev)
        recv = torch.empty(16384, device=dev)
        reqs = dist.batch_isend_irecv([dist.P2POp(dist.isend, send, peer_send), dist.P2POp(dist.irecv, recv, peer_recv)])
        for r in reqs:
            r.wait()
        counter.add("send", send, step)
        counter.add("recv", recv, step)
        alone = torch.randn(65536, device=dev)
        dist.all_reduce(alone)
        counter.add("all_reduce", alone, step)
        torch.cuda.synchronize(dev)
    # The groups NCCL receives, as the profiler half records them (caller's view, issue order):
    # the coalesced all_reduces once per step on each rank, the send/recv pair once per step
    # on each rank (p2p groups add up over ranks in a merged file).
    return {"grouped_allreduce_numels": sizes, "p2p_numel": 16384, "alone_numel": 65536,
            "groups": [{"members": [["allreduce", "float32", n] for n in sizes], "calls_per_rank": STEPS},
                       {"members": [["send", "float32", 16384], ["recv", "float32", 16384]], "calls_per_rank": STEPS}]}


def switched(rank, world, dev, counter):
    first = torch.ones(1024, device=dev)
    dist.all_reduce(first)  # the communicator exists from here: NCCL has loaded its profiler plugin
    torch.cuda.synchronize(dev)
    counter.add("all_reduce", first, 0)
    plugin = os.environ.get("NCCL_PROFILER_PLUGIN")
    lib = ctypes.CDLL(plugin, mode=os.RTLD_NOLOAD | os.RTLD_NOW) if plugin else None
    rcs = [lib.cctune_profiler_events(b"off")] if lib else []
    for _ in range(2):  # warm-up: issued, not recorded, not counted
        dist.all_reduce(torch.ones(8192, device=dev))
    torch.cuda.synchronize(dev)
    if lib:
        rcs.append(lib.cctune_profiler_events(b"timing"))
    for step in range(2, STEPS):
        t = torch.ones(16384, device=dev)
        dist.all_reduce(t)
        counter.add("all_reduce", t, step)
    torch.cuda.synchronize(dev)
    return {"switch_rc": rcs, "not_recorded": [["allreduce", "float32", 8192, 2]]}


def dump_flight_recorder(out_dir, rank):
    c10d = torch._C._distributed_c10d
    for name in ("_dump_nccl_trace_json",):
        fn = getattr(c10d, name, None)
        if fn is None:
            continue
        try:
            text = fn(includeCollectives=True, onlyActive=False)
        except TypeError:
            text = fn()
        with open(os.path.join(out_dir, f"flight.rank{rank}.json"), "w") as f:
            f.write(text if isinstance(text, str) else text.decode())
        return name
    return None


def main():
    workload, out_dir = sys.argv[1], sys.argv[2]
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    dev = torch.device("cuda", int(os.environ.get("CAPTURE_DEVICE", "0")))  # capture_workloads.sh: CAPTURE_GPUS
    torch.cuda.set_device(dev)
    dist.init_process_group("nccl", rank=rank, world_size=world, device_id=dev)
    counter = Counter()
    t0 = time.time()
    extra = {"ddp": ddp, "fsdp": fsdp, "alltoall": alltoall, "grouped": grouped, "switched": switched}[workload](rank, world, dev, counter)
    # The closing barrier is a collective too (NCCL: a one-element allreduce): counted as such.
    counter.add("barrier", torch.zeros(1, device=dev), STEPS)
    dist.barrier(device_ids=[dev.index])
    torch.cuda.synchronize(dev)
    flight = dump_flight_recorder(out_dir, rank)
    with open(os.path.join(out_dir, f"counts.rank{rank}.json"), "w") as f:
        json.dump({"workload": workload, "rank": rank, "world_size": world, "steps": STEPS,
                   "torch": torch.__version__, "nccl": ".".join(map(str, torch.cuda.nccl.version())),
                   "flight_recorder": flight, "wall_s": round(time.time() - t0, 3), "extra": extra,
                   "calls": counter.to_json()}, f, indent=1)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
