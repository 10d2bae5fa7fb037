#pragma once
// RankComm over MPI_COMM_WORLD, or over a part of it (split). The app owns MPI_Init/Finalize
// (MpiRuntime).
#include <mpi.h>

#include <memory>

#include "comm/rank_comm.hpp"

namespace cctune {

// Initialises MPI (thread level SINGLE) on construction and finalizes on destruction.
class MpiRuntime {
 public:
  MpiRuntime(int* argc, char*** argv);
  ~MpiRuntime();
  MpiRuntime(const MpiRuntime&) = delete;
  MpiRuntime& operator=(const MpiRuntime&) = delete;
  static std::string library_version();
};

class MpiRankComm : public RankComm {
 public:
  explicit MpiRankComm(MPI_Comm comm = MPI_COMM_WORLD);
  ~MpiRankComm() override;
  MpiRankComm(const MpiRankComm&) = delete;
  MpiRankComm& operator=(const MpiRankComm&) = delete;
  // Collective over this communicator (MPI_Comm_split): the ranks passing the same `color`
  // form one new communicator, ordered by `key` (then by rank here). A negative color takes
  // no part (MPI_UNDEFINED) and gets nullptr. The new communicator is freed with its owner.
  std::unique_ptr<MpiRankComm> split(int color, int key);
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void barrier() override;
  void allreduce_sum(std::span<double> values) override;
  void allreduce_max(std::span<double> values) override;
  void broadcast(std::string& data, int root) override;
  std::vector<std::string> allgather(const std::string& mine) override;
  void send(const std::string& data, int peer, int tag) override;
  std::string recv(int peer, int tag) override;
  MPI_Comm handle() const { return comm_; }

 private:
  struct Owned {};
  MpiRankComm(MPI_Comm comm, Owned);
  MPI_Comm comm_;
  bool owned_ = false;  // a split's communicator, freed by the destructor
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace cctune
