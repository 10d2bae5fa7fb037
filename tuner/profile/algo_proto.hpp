#pragma once
// The tuner's view of NCCL's algorithms and protocols: core/algo_proto.hpp owns the enums
// and their one name table and AlgorithmSet; this adds the names of a set, for profiles and
// the plugin's messages.
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

using cctune::algorithm_bit;
using cctune::AlgorithmSet;
using cctune::kEveryAlgorithm;
// Names in NCCL's index order ("tree", "ring", ...).
std::vector<std::string> algorithm_names(AlgorithmSet set);
// "nvls, nvls_tree"; empty for the empty set.
std::string join_algorithm_names(AlgorithmSet set);
// Unknown names are ignored (they come from files written by other versions).
AlgorithmSet algorithm_set(const std::vector<std::string>& names) noexcept;

}  // namespace cctune::tuner
