#pragma once
// A stand-in for libcctune-nccl.so that needs no GPU, selected with
// CCTUNE_TEST_WORKER_BACKEND=selftest, so that the whole supervisor lifecycle (spawn, pipes,
// uid relay, heartbeats, timeouts, kills, agreement across mpirun ranks) runs for real in CI.
// Its "collective" sleeps a few microseconds per operation and reports those times; its
// RankComm is local to the worker (every rank is assumed to hold the same values), so
// workers never talk to each other. Test switches, read from the worker's environment:
//   CCTUNE_SELFTEST_GPUS=N          device_count() (default 4)
//   CCTUNE_SELFTEST_INIT_ERROR=text create_backend() fails with this message, as a bad
//                                   NCCL setting makes ncclCommInitRank fail
//   CCTUNE_SELFTEST_MEMORY=bytes    per-GPU memory (default 1 GiB); larger buffers are refused
#include <memory>

#include "collectives/nccl/nccl_module.hpp"

namespace cctune::runtime {

std::unique_ptr<NcclModule> make_selftest_module();

}  // namespace cctune::runtime
