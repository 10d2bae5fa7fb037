#pragma once
// Where each collective's input and output live in the MPI backend's two host buffers, how
// one operation is called (out-of-place, or in-place with MPI_IN_PLACE where the call has
// it, in nccl-tests' in-place layouts), and the exact output each rank expects.
#include <mpi.h>

#include <cstddef>
#include <string>

#include "collectives/backend.hpp"

namespace cctune::mpi_detail {

struct HostBuffers {
  std::byte* send = nullptr;
  std::byte* recv = nullptr;
};

struct RankInfo {
  int rank = 0;
  int size = 1;
};

// Empty when MPI has a call for this collective and placement; else why not.
std::string placement_unsupported(const PointSpec& spec);
// Fills the inputs with the data pattern and zeroes the output region that will be checked.
void fill_inputs(const PointSpec& spec, RankInfo me, HostBuffers buf);
void run_collective(const PointSpec& spec, RankInfo me, HostBuffers buf, MPI_Comm comm);
// Wrong elements in this rank's output (0 on ranks whose output the collective leaves
// undefined: non-roots of reduce and gather).
long count_wrong_elements(const PointSpec& spec, RankInfo me, HostBuffers buf);

}  // namespace cctune::mpi_detail
