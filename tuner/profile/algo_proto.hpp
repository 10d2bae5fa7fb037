#pragma once
// The tuner's view of NCCL's algorithms and protocols: core/algo_proto.hpp owns the enums
// and their one name table; this adds sets of algorithms for the plugin's launch path.
#include <cstdint>
#include <string>
#include <vector>

#include "core/algo_proto.hpp"

namespace cctune::tuner {

using cctune::Algorithm;
using cctune::algorithm_from_index;
using cctune::all_algorithms;
using cctune::all_protocols;
using cctune::kAlgorithmCount;
using cctune::kProtocolCount;
using cctune::parse_algorithm;
using cctune::parse_protocol;
using cctune::Protocol;
using cctune::protocol_from_index;
using cctune::to_string;

// A set of algorithms as a bit mask (bit i: NCCL's algorithm index i): no allocation, so the
// tuner plugin can compute and compare sets on the launch path.
using AlgorithmSet = std::uint32_t;
constexpr AlgorithmSet algorithm_bit(Algorithm a) noexcept { return AlgorithmSet{1} << static_cast<int>(a); }
inline constexpr AlgorithmSet kEveryAlgorithm = (AlgorithmSet{1} << kAlgorithmCount) - 1;
// Names in NCCL's index order ("tree", "ring", ...).
std::vector<std::string> algorithm_names(AlgorithmSet set);
// "nvls, nvls_tree"; empty for the empty set.
std::string join_algorithm_names(AlgorithmSet set);
// Unknown names are ignored (they come from files written by other versions).
AlgorithmSet algorithm_set(const std::vector<std::string>& names) noexcept;

}  // namespace cctune::tuner
