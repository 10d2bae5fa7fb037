#pragma once
// Which input element every output element of a collective holds, for the data check. Every
// rank's input element i is pattern_value(rank, i) (data_pattern.hpp); these functions say,
// per output element, which rank's element (or the reduction over all ranks of which index)
// must be there. One definition for both backends: constexpr, so the NCCL check kernels call
// it on the device (--expt-relaxed-constexpr) and the MPI backend on the host.
#include <cstdint>

#include "core/collective.hpp"

namespace cctune {

// The output a rank checks after one operation.
struct ExpectedLayout {
  Collective collective = Collective::AllReduce;
  int rank = 0;
  int nranks = 1;
  int root = 0;
  std::uint64_t block = 0;  // the call's count (CollectiveBytes::param_count)
};

// Source::rank for "the reduction over every rank of element `index`".
inline constexpr int kReducedOverRanks = -1;

struct ExpectedSource {
  int rank = 0;  // or kReducedOverRanks
  std::uint64_t index = 0;
};

// Output elements to check on this rank: 0 where the collective leaves the output undefined
// (reduce and gather on ranks other than the root).
constexpr std::uint64_t expected_count(const ExpectedLayout& l) {
  const std::uint64_t n = static_cast<std::uint64_t>(l.nranks);
  switch (l.collective) {
    case Collective::Reduce: return l.rank == l.root ? l.block : 0;
    case Collective::Gather: return l.rank == l.root ? l.block * n : 0;
    case Collective::AllGather:
    case Collective::AllToAll: return l.block * n;
    default: return l.block;
  }
}

// The source of output element i (i < expected_count(l)).
constexpr ExpectedSource expected_source(const ExpectedLayout& l, std::uint64_t i) {
  const std::uint64_t mine = static_cast<std::uint64_t>(l.rank) * l.block;  // this rank's block
  switch (l.collective) {
    case Collective::AllReduce:
    case Collective::Reduce: return {kReducedOverRanks, i};
    case Collective::ReduceScatter: return {kReducedOverRanks, mine + i};
    case Collective::AllGather:
    case Collective::Gather: return {static_cast<int>(i / l.block), i % l.block};
    case Collective::AllToAll: return {static_cast<int>(i / l.block), mine + i % l.block};
    case Collective::Broadcast: return {l.root, i};
    case Collective::Scatter: return {l.root, mine + i};
    case Collective::SendRecv: return {(l.rank + l.nranks - 1) % l.nranks, i};  // from the previous rank
  }
  return {kReducedOverRanks, i};
}

}  // namespace cctune
