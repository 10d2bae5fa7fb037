#pragma once
// Communicators the job has destroyed, kept for the profiler file until the process ends.
// A job that creates and destroys communicators per phase or per step must not grow the
// memory and the file without bound, so the store is bounded:
// - lifetimes of one communicator on this rank (same id, nranks, nnodes and rank) are one
//   record: their counts add up (calls, applied choices, durations, groups);
// - at most `max_entries` shapes and group members in all: shapes and groups that find no
//   room are counted in the record's calls_not_recorded / groups_not_recorded instead;
// - at most `max_records` records: past that the record with the fewest calls goes (a
//   communicator with fewer calls than all of them is not kept), so the job's main
//   communicators, destroyed last, are not the ones lost; what goes is only counted
//   (dropped_communicators(), dropped_calls()).
// Not thread-safe: the sink's lock guards it.
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "workload/workload.hpp"

namespace cctune::tuner {

class FinishedComms {
 public:
  static constexpr std::size_t default_max_entries = 65536;
  static constexpr std::size_t default_max_records = 4096;
  explicit FinishedComms(std::size_t max_entries = default_max_entries, std::size_t max_records = default_max_records);

  // A communicator's record as it was destroyed. False when it, or another record to make
  // room for it, was dropped.
  bool add(const workload::Communicator& comm);
  // The records with the `live` communicators' snapshots coalesced in (theirs are already
  // bounded by their own tables), sorted by id.
  std::vector<workload::Communicator> with(const std::vector<workload::Communicator>& live) const;

  std::size_t records() const noexcept { return records_.size(); }
  std::size_t entries() const noexcept { return entries_; }
  std::uint64_t dropped_communicators() const noexcept { return dropped_communicators_; }
  std::uint64_t dropped_calls() const noexcept { return dropped_calls_; }

 private:
  using Key = std::tuple<std::string, int, int, std::vector<int>>;  // id, nranks, nnodes, ranks
  static Key key_of(const workload::Communicator& c);
  void drop_smallest();

  const std::size_t max_entries_, max_records_;
  std::map<Key, workload::Communicator> records_;
  std::set<std::pair<std::uint64_t, Key>> by_calls_;  // (a record's calls, its key): the smallest first
  std::size_t entries_ = 0;
  std::uint64_t dropped_communicators_ = 0, dropped_calls_ = 0;
};

// Adds one lifetime's counts (`from`) to another's record of the same communicator and rank
// (`into`). New shapes and groups take room from `room` (entries; shapes count one, groups
// one per member); those that find none are counted as not recorded. Watch findings are not
// kept: they are judged again on the merged counts as the file is written.
void add_lifetime(workload::Communicator& into, const workload::Communicator& from, std::size_t& room);

}  // namespace cctune::tuner
