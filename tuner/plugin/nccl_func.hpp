#pragma once
// NCCL's ncclFunc_t values of the collectives a tuner is asked about, as cctune's Collective:
// the table's nccl_func (core/collective_traits.hpp), checked against the plugin ABI's values.
#include <optional>

#include "core/collective_traits.hpp"
#include "tuner/plugin/nccl_tuner_abi.hpp"

namespace cctune::tuner {

static_assert(kNcclFuncBroadcast == nccl_abi::kFuncBroadcast && kNcclFuncReduce == nccl_abi::kFuncReduce &&
                  kNcclFuncAllGather == nccl_abi::kFuncAllGather && kNcclFuncReduceScatter == nccl_abi::kFuncReduceScatter &&
                  kNcclFuncAllReduce == nccl_abi::kFuncAllReduce,
              "core/collective_traits.hpp's ncclFunc_t values differ from the tuner ABI's");

inline std::optional<Collective> collective_from_nccl_func(int nccl_func) noexcept {
  if (nccl_func == kNotTunable) return std::nullopt;
  for (const CollectiveTraits& t : collective_table)
    if (t.nccl_func == nccl_func) return t.collective;
  return std::nullopt;
}

}  // namespace cctune::tuner
