#pragma once
// A stand-in for libcctune-nccl.so that needs no GPU, selected with
// CCTUNE_TEST_WORKER_BACKEND=selftest, so that the whole supervisor lifecycle (spawn, pipes,
// uid relay, heartbeats, timeouts, kills, agreement across mpirun ranks) runs for real in CI.
// Its "collective" sleeps a few microseconds per operation and reports those times; its
// RankComm is local to the worker (every rank is assumed to hold the same values), so
// workers never talk to each other. What it simulates (device count, memory, an init failure
// as a bad NCCL setting makes ncclCommInitRank fail, slowdowns) comes from SelftestHooks
// (core/test_hooks.hpp, docs/TESTING.md).
#include <memory>

#include "collectives/nccl/nccl_module.hpp"
#include "core/test_hooks.hpp"

namespace cctune::runtime {

std::unique_ptr<NcclModule> make_selftest_module(const SelftestHooks& hooks);

}  // namespace cctune::runtime
