#pragma once
// What each collective is, in one table: the single place that says how a collective is
// named, called, counted and measured. Every "which collectives are rooted / reduce / can be
// tuned / have NCCL's native call" question is a lookup here, never a switch of its own.
// Header-only and constexpr, so that the tuner plugin (tuner/profile, which must not link
// cctune_core) and the CUDA check kernels can read it too. docs/PERFORMANCE.md explains the
// count and bus-factor rules; docs/NCCL_BACKEND.md the two implementations.
#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

#include "core/collective.hpp"

namespace cctune {

// How the call's count and the per-rank buffers follow from the requested size (nccl-tests'
// GetCollByteCount): `count` = requested bytes / element size; n = ranks.
enum class CountRule {
  Whole,      // param = count; send = recv = param
  Gathered,   // param = count / n; send = param, recv = param * n (allgather, gather)
  Scattered,  // param = count / n; send = param * n, recv = param (reducescatter, scatter)
  Exchanged,  // param = count / n; send = recv = param * n (alltoall)
};

// busbw / algbw (nccl-tests' GetBw): the share of the data each rank's link carries.
enum class BusRule {
  TwiceShare,  // 2 (n - 1) / n: allreduce
  Share,       // (n - 1) / n: allgather, reducescatter, alltoall, gather, scatter
  One,         // 1: broadcast, reduce, sendrecv
};

// How the NCCL backend runs a point-to-point collective (results' "impl"):
//  - Native: NCCL's own single call (ncclAlltoAll, ncclGather, ncclScatter; NCCL >= 2.28),
//  - Grouped: ncclSend/ncclRecv pairs inside one ncclGroupStart/ncclGroupEnd.
enum class P2pImpl { Native, Grouped };

struct CollectiveTraits {
  Collective collective;
  std::string_view name;       // the CLI and results spelling
  std::string_view nccl_call;  // the NCCL entry point nccl-tests calls (when present)
  // The native call exists only in newer NCCLs (looked up in the loaded library at run time);
  // without it the grouped composition below runs.
  bool native_optional;
  bool grouped;                // a grouped ncclSend/ncclRecv composition exists (and is how
                               // nccl-tests runs it before NCCL 2.28)
  CountRule counts;
  BusRule bus;
  bool rooted;                 // one rank (the root) is the source or the sink
  bool reduction;              // takes a reduction op
  int nccl_func;               // ncclFunc_t the tuner plugin is asked about; -1: NCCL's p2p path
  std::string_view mpi_call;
  // NCCL measures it in place: grouped sends and receives on one buffer would overwrite
  // data before it is sent (nccl-tests does not check in-place alltoall either).
  bool nccl_in_place;
};

// ncclFunc_t values (NCCL's src/include/device.h order); tuner/plugin/nccl_func.hpp asserts
// they match the plugin ABI's.
inline constexpr int kNcclFuncBroadcast = 0, kNcclFuncReduce = 1, kNcclFuncAllGather = 2,
                     kNcclFuncReduceScatter = 3, kNcclFuncAllReduce = 4, kNotTunable = -1;

// In Collective's declaration order (all_collectives()' order, `--collectives all`).
inline constexpr std::array<CollectiveTraits, 9> collective_table{{
    {Collective::AllReduce, "allreduce", "ncclAllReduce", false, false, CountRule::Whole, BusRule::TwiceShare,
     false, true, kNcclFuncAllReduce, "MPI_Allreduce", true},
    {Collective::AllGather, "allgather", "ncclAllGather", false, false, CountRule::Gathered, BusRule::Share,
     false, false, kNcclFuncAllGather, "MPI_Allgather", true},
    {Collective::ReduceScatter, "reducescatter", "ncclReduceScatter", false, false, CountRule::Scattered,
     BusRule::Share, false, true, kNcclFuncReduceScatter, "MPI_Reduce_scatter_block", true},
    {Collective::Broadcast, "broadcast", "ncclBroadcast", false, false, CountRule::Whole, BusRule::One, true,
     false, kNcclFuncBroadcast, "MPI_Bcast", true},
    {Collective::Reduce, "reduce", "ncclReduce", false, false, CountRule::Whole, BusRule::One, true, true,
     kNcclFuncReduce, "MPI_Reduce", true},
    {Collective::AllToAll, "alltoall", "ncclAlltoAll", true, true, CountRule::Exchanged, BusRule::Share, false,
     false, kNotTunable, "MPI_Alltoall", false},
    {Collective::SendRecv, "sendrecv", "ncclSend/ncclRecv", false, true, CountRule::Whole, BusRule::One, false,
     false, kNotTunable, "MPI_Sendrecv", false},
    {Collective::Gather, "gather", "ncclGather", true, true, CountRule::Gathered, BusRule::Share, true, false,
     kNotTunable, "MPI_Gather", true},
    {Collective::Scatter, "scatter", "ncclScatter", true, true, CountRule::Scattered, BusRule::Share, true, false,
     kNotTunable, "MPI_Scatter", true},
}};

constexpr const CollectiveTraits& traits(Collective c) {
  for (const CollectiveTraits& t : collective_table)
    if (t.collective == c) return t;
  return collective_table[0];  // unreachable: every enumerator has an entry (static_assert below)
}

constexpr bool table_is_complete() {
  for (std::size_t i = 0; i < collective_table.size(); ++i)
    if (static_cast<std::size_t>(collective_table[i].collective) != i) return false;
  return true;
}
static_assert(table_is_complete(), "collective_table: one entry per Collective, in declaration order");

constexpr std::optional<Collective> collective_named(std::string_view name) {
  for (const CollectiveTraits& t : collective_table)
    if (t.name == name) return t.collective;
  return std::nullopt;
}

// The tuner plugin can steer it (NCCL asks the plugin about this collective); NCCL's
// point-to-point path never consults a tuner.
constexpr bool is_tunable(Collective c) { return traits(c).nccl_func != kNotTunable; }
// NCCL has two implementations of it (native call and grouped send/recv), --p2p-impl picks.
constexpr bool has_two_impls(Collective c) { return traits(c).native_optional && traits(c).grouped; }

// The buffer split over ranks: requests round to one element per rank (request_granule).
constexpr bool splits_over_ranks(Collective c) { return traits(c).counts != CountRule::Whole; }

constexpr std::string_view to_string_view(P2pImpl i) { return i == P2pImpl::Native ? "native" : "grouped"; }
constexpr std::optional<P2pImpl> parse_p2p_impl(std::string_view s) {
  if (s == "native") return P2pImpl::Native;
  if (s == "grouped") return P2pImpl::Grouped;
  return std::nullopt;
}

// `--p2p-impl`: which implementations of alltoall, gather and scatter a sweep measures.
//  - Native (the default, as nccl-tests >= NCCL 2.28): the native call where the loaded NCCL
//    has it, else grouped (recorded as grouped);
//  - Grouped: always grouped send/recv;
//  - Both: each point twice, as two variants; native is skipped with the reason where absent.
enum class P2pImplChoice { Native, Grouped, Both };
inline constexpr std::string_view p2p_impl_choices = "native, grouped or both";

constexpr std::string_view to_string_view(P2pImplChoice c) {
  return c == P2pImplChoice::Native ? "native" : c == P2pImplChoice::Grouped ? "grouped" : "both";
}
constexpr std::optional<P2pImplChoice> parse_p2p_impl_choice(std::string_view s) {
  if (s == "native") return P2pImplChoice::Native;
  if (s == "grouped") return P2pImplChoice::Grouped;
  if (s == "both") return P2pImplChoice::Both;
  return std::nullopt;
}

}  // namespace cctune
