#pragma once
// The rules of a profile that apply to one communicator shape (nranks, nnodes), arranged
// for the tuner plugin's launch path: one vector per collective, sorted by min_bytes, so a
// lookup is a binary search that allocates nothing. Built once per communicator at init.
#include <array>
#include <cstdint>
#include <vector>

#include "tuner/profile/profile.hpp"

namespace cctune::tuner {

struct RuleChoice {
  std::uint64_t min_bytes = 0;
  std::uint64_t max_bytes = 0;
  Algorithm algorithm = Algorithm::Ring;
  Protocol protocol = Protocol::Simple;
  int channels = 0;
  std::uint32_t rule_index = 0;  // index in Profile::rules, for messages
};

class RuleTable {
 public:
  RuleTable() = default;
  // Rules of `profile` with exactly this nranks and nnodes; other shapes are left out so
  // NCCL keeps its own choices for them. The profile must be valid (disjoint ranges).
  static RuleTable for_communicator(const Profile& profile, int nranks, int nnodes);

  // The rule whose [min_bytes, max_bytes] holds n_bytes, or nullptr. O(log rules).
  const RuleChoice* find(Collective collective, std::uint64_t n_bytes) const noexcept;
  // The algorithms NCCL offered for this collective and communicator shape when the rules
  // were measured (kUnrecordedOffer where the profile does not say).
  AlgorithmSet offered(Collective collective) const noexcept;
  std::size_t size() const noexcept;
  bool empty() const noexcept { return size() == 0; }

 private:
  // Indexed by Collective's value: AllReduce, AllGather, ReduceScatter, Broadcast, Reduce.
  static constexpr std::size_t kSlots = 5;
  std::array<std::vector<RuleChoice>, kSlots> by_collective_;
  std::array<AlgorithmSet, kSlots> offered_{};
};

}  // namespace cctune::tuner
