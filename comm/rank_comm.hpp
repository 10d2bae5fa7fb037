#pragma once
// The launcher seam: what the engine, the topology gather and the network probes need
// from "the other ranks". MPI implements it for real (comm/mpi_rank_comm.hpp); tests
// implement it with threads in one process (tests/support/thread_comm.hpp).
#include <algorithm>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace cctune {

class RankComm {
 public:
  virtual ~RankComm() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual void barrier() = 0;
  // Element-wise reductions in place; every rank passes the same length.
  virtual void allreduce_sum(std::span<double> values) = 0;
  virtual void allreduce_max(std::span<double> values) = 0;
  // Every rank's `mine` (the same length on every rank), rank after rank, on every rank.
  // The default goes through allreduce_sum (each rank fills its own slot).
  virtual std::vector<double> allgather_values(std::span<const double> mine) {
    std::vector<double> all(mine.size() * static_cast<std::size_t>(size()), 0.0);
    std::copy(mine.begin(), mine.end(), all.begin() + static_cast<std::ptrdiff_t>(mine.size() * static_cast<std::size_t>(rank())));
    allreduce_sum(all);
    return all;
  }
  // Rank `root`'s bytes end up in `data` on every rank.
  virtual void broadcast(std::string& data, int root) = 0;
  // Every rank's string, indexed by rank, on every rank.
  virtual std::vector<std::string> allgather(const std::string& mine) = 0;
  // Point to point, for pairwise probes: blocking, matched by (peer, tag).
  virtual void send(const std::string& data, int peer, int tag) = 0;
  virtual std::string recv(int peer, int tag) = 0;

  double sum(double v) { allreduce_sum(std::span<double>(&v, 1)); return v; }
  double max(double v) { allreduce_max(std::span<double>(&v, 1)); return v; }
  // True on every rank when any rank passes true.
  bool any(bool v) { return max(v ? 1.0 : 0.0) > 0.5; }
};

}  // namespace cctune
