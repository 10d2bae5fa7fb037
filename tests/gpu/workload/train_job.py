"""A real training job for `cctune verify --job` and `tune --job` on lent GPUs (issue #35).

  python3 -m torch.distributed.run --standalone --nproc-per-node N train_job.py MODE [options]

MODE ddp: an MLP of about 50 M parameters (three 4096 x 4096 layers) under
DistributedDataParallel: each step all-reduces its fp32 gradients in buckets. MODE fsdp2: the
same model under FSDP2 (fully_shard per layer): each step all-gathers parameter shards and
reduce-scatters gradient shards. --emulate-nodes K splits the local ranks into K NCCL hosts
(NCCL_HOSTID, set before NCCL starts), so traffic between them takes NCCL's socket transport
as on an Ethernet cluster without RDMA. The job prints nothing; --report FILE makes rank 0
write its own mean step time (CUDA-synchronised over the timed steps), to compare with the
profiler half's.

It ends as most training scripts do (--ending, default metrics-barrier): the mean loss
all-reduced across ranks (a one-element all-reduce), then dist.barrier() (another), after the
last step; --eval-every M adds an evaluation every M steps whose loss is all-reduced too. cctune
must find the step without being told (issue 43): no --steps, no CCTUNE_WORKLOAD_STEPS.
"""
import argparse
import json
import os
import time

import torch
import torch.distributed as dist

WARMUP_STEPS = 3


def model_of(dev):
    return torch.nn.Sequential(torch.nn.Linear(4096, 4096), torch.nn.ReLU(), torch.nn.Linear(4096, 4096), torch.nn.ReLU(),
                               torch.nn.Linear(4096, 4096)).to(dev)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["ddp", "fsdp2"])
    p.add_argument("--steps", type=int, default=20, help="timed steps (after %d warm-up steps)" % WARMUP_STEPS)
    p.add_argument("--emulate-nodes", type=int, default=1)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--report")
    p.add_argument("--ending", choices=["metrics-barrier", "none"], default="metrics-barrier")
    p.add_argument("--eval-every", type=int, default=0, help="an evaluation (its loss all-reduced) every M steps; 0: none")
    a = p.parse_args()
    local_rank, local_world = int(os.environ["LOCAL_RANK"]), int(os.environ["LOCAL_WORLD_SIZE"])
    if a.emulate_nodes > 1:
        os.environ["NCCL_HOSTID"] = "emulated-node-%d" % (local_rank // (local_world // a.emulate_nodes))
    torch.cuda.set_device(local_rank)
    dev = torch.device("cuda", local_rank)
    dist.init_process_group("nccl", device_id=dev)
    torch.manual_seed(0)
    model = model_of(dev)
    if a.mode == "ddp":
        model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[local_rank])
    else:
        from torch.distributed.fsdp import fully_shard
        for layer in model:
            if isinstance(layer, torch.nn.Linear):
                fully_shard(layer)
        fully_shard(model)
    opt = torch.optim.SGD(model.parameters(), lr=1e-4)
    x = torch.randn(a.batch, 4096, device=dev)
    start = None
    for step in range(WARMUP_STEPS + a.steps):
        if step == WARMUP_STEPS:
            torch.cuda.synchronize()
            start = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        loss = model(x).square().mean()
        loss.backward()
        opt.step()
        if a.eval_every and (step + 1) % a.eval_every == 0:
            with torch.no_grad():
                val = model(x).square().mean().detach()
            dist.all_reduce(val)
    torch.cuda.synchronize()
    own_ms = (time.perf_counter() - start) * 1000.0 / a.steps
    if a.ending == "metrics-barrier":
        metric = loss.detach().reshape(1)
        dist.all_reduce(metric)
        metric /= dist.get_world_size()
        dist.barrier()
    if a.report and dist.get_rank() == 0:
        with open(a.report, "w") as f:
            json.dump({"mode": a.mode, "steps": a.steps, "warmup_steps": WARMUP_STEPS, "own_step_ms": own_ms,
                       "world": dist.get_world_size(), "emulated_nodes": a.emulate_nodes}, f)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
