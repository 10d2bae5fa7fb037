#pragma once
// NCCL's ncclFunc_t values of the five collectives a tuner is asked about, as cctune's Collective.
#include <optional>

#include "core/collective.hpp"
#include "tuner/plugin/nccl_tuner_abi.hpp"

namespace cctune::tuner {

inline std::optional<Collective> collective_from_nccl_func(int nccl_func) noexcept {
  switch (nccl_func) {
    case nccl_abi::kFuncBroadcast: return Collective::Broadcast;
    case nccl_abi::kFuncReduce: return Collective::Reduce;
    case nccl_abi::kFuncAllGather: return Collective::AllGather;
    case nccl_abi::kFuncReduceScatter: return Collective::ReduceScatter;
    case nccl_abi::kFuncAllReduce: return Collective::AllReduce;
    default: return std::nullopt;
  }
}

}  // namespace cctune::tuner
