#pragma once
// The measurements `cctune tune` chooses from, indexed by what a profile rule is keyed on:
// (collective, nranks, nnodes, size). Reads results; decides nothing.
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "core/results.hpp"
#include "tuner/selection/timing.hpp"

namespace cctune::tuner {

struct ShapeKey {
  Collective collective = Collective::AllReduce;
  int nranks = 0;
  int nnodes = 0;
  auto operator<=>(const ShapeKey&) const = default;
};

// One measured configuration at one size.
struct Candidate {
  std::size_t group = 0;  // index into CandidateSet::groups
  PointConfig config;     // what was forced ("auto" where NCCL chose)
  std::optional<Algorithm> chosen_algo;  // what ran, as observed by the tuner plugin
  std::optional<Protocol> chosen_proto;
  int chosen_channels = 0;  // channels NCCL used; 0 unknown
  Timing timing;
  DType dtype = DType::Float32;  // the layout chosen for its size (one data type per size)
  bool is_auto() const { return config.is_default(); }
};

struct ProcessGroup {
  std::string name;
  std::map<std::string, std::string> env;
};

struct CandidateSet {
  std::vector<ProcessGroup> groups;  // in the order the results list them
  // shape -> size -> candidates of every group at that size
  std::map<ShapeKey, std::map<std::uint64_t, std::vector<Candidate>>> by_shape;
  std::vector<std::string> notes;  // what was left out and why
};

// Collects usable points of NCCL runs: status ok, not failed data checks (wrong > 0), one
// placement, data type, op and root per (shape, size) (out-of-place preferred, as nccl-tests'
// headline). All nine collectives take part (the process-level group is chosen over them all);
// of those the tuner does not steer (alltoall, sendrecv, gather, scatter) only NCCL-default
// points. Points of failed groups measured before the failure are kept. Where one
// configuration was measured twice, the tighter one is kept.
// `preferred_dtypes` (a job's, per collective): where points of that data type were measured at a
// size, they are the ones used there.
CandidateSet collect_candidates(const Results& results, const std::map<Collective, DType>& preferred_dtypes = {});

}  // namespace cctune::tuner
