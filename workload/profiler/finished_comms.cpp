#include "workload/profiler/finished_comms.hpp"

#include <algorithm>
#include <cstdint>

namespace cctune::tuner {
namespace {

std::size_t entries_of(const workload::Communicator& c) {
  std::size_t n = c.calls.size();
  for (const workload::CallGroup& g : c.groups) n += g.members.size();
  return n;
}

std::uint64_t calls_of(const workload::Communicator& c) {
  std::uint64_t n = c.calls_not_recorded;
  for (const workload::CallStats& s : c.calls) n += s.calls;
  return n;
}

// One rank's lifetimes follow one another: applied counts add up (a merge across ranks
// takes the larger instead, as each rank sees the same calls).
void add_applied(std::vector<workload::Applied>& into, const std::vector<workload::Applied>& from) {
  for (const workload::Applied& a : from) {
    auto same = [&](const workload::Applied& b) { return b.algo == a.algo && b.proto == a.proto && b.channels == a.channels; };
    auto it = std::find_if(into.begin(), into.end(), same);
    if (it == into.end()) into.push_back(a);
    else it->calls += a.calls;
  }
}

void add_calls(workload::Communicator& into, const workload::Communicator& from, std::size_t& room) {
  std::map<workload::CallShape, workload::CallStats> by_shape;
  for (workload::CallStats& s : into.calls) by_shape.emplace(s.shape, std::move(s));
  for (const workload::CallStats& s : from.calls) {
    auto it = by_shape.find(s.shape);
    if (it == by_shape.end()) {
      if (room == 0) {
        into.calls_not_recorded += s.calls;
        continue;
      }
      --room;
      by_shape.emplace(s.shape, s);
      continue;
    }
    workload::CallStats& have = it->second;
    have.calls += s.calls;
    add_applied(have.applied, s.applied);
    have.durations.merge(s.durations);
    if (s.first_call && (!have.first_call || *s.first_call < *have.first_call)) have.first_call = s.first_call;
  }
  into.calls.clear();
  for (auto& [shape, stats] : by_shape) into.calls.push_back(std::move(stats));
}

void add_groups(workload::Communicator& into, const workload::Communicator& from, std::size_t& room) {
  std::map<std::vector<workload::CallShape>, std::uint64_t> by_members;
  for (const workload::CallGroup& g : into.groups) by_members.emplace(g.members, g.calls);
  for (const workload::CallGroup& g : from.groups) {
    auto it = by_members.find(g.members);
    if (it != by_members.end()) {
      it->second += g.calls;
    } else if (g.members.size() > room) {
      into.groups_not_recorded += g.calls;
    } else {
      room -= g.members.size();
      by_members.emplace(g.members, g.calls);
    }
  }
  into.groups.clear();
  for (auto& [members, calls] : by_members) into.groups.push_back({members, calls});
}

}  // namespace

void add_lifetime(workload::Communicator& into, const workload::Communicator& from, std::size_t& room) {
  into.calls_not_recorded += from.calls_not_recorded;
  into.groups_not_recorded += from.groups_not_recorded;
  add_calls(into, from, room);
  add_groups(into, from, room);
  into.watch.clear();
  // Steps are timed per lifetime: the one that timed the most stands for the communicator.
  if (from.cadence && (!into.cadence || from.cadence->timed_steps >= into.cadence->timed_steps)) into.cadence = from.cadence;
  // Why the latest lifetime showed no step, while none did.
  if (!into.cadence && from.no_step) into.no_step = from.no_step;
  if (into.cadence) into.no_step.reset();
}

FinishedComms::FinishedComms(std::size_t max_entries, std::size_t max_records) : max_entries_(max_entries), max_records_(max_records) {}

FinishedComms::Key FinishedComms::key_of(const workload::Communicator& c) { return {c.id, c.nranks, c.nnodes, c.ranks}; }

void FinishedComms::drop_smallest() {
  const auto smallest = by_calls_.begin();
  const auto it = records_.find(smallest->second);
  ++dropped_communicators_;
  dropped_calls_ += smallest->first;
  entries_ -= entries_of(it->second);
  records_.erase(it);
  by_calls_.erase(smallest);
}

bool FinishedComms::add(const workload::Communicator& comm) {
  const Key key = key_of(comm);
  auto it = records_.find(key);
  bool dropped = false;
  if (it == records_.end()) {
    if (records_.size() >= max_records_) {
      if (records_.empty() || calls_of(comm) <= by_calls_.begin()->first) {
        ++dropped_communicators_;
        dropped_calls_ += calls_of(comm);
        return false;
      }
      drop_smallest();
      dropped = true;
    }
    workload::Communicator empty;  // its identity; the counts come as any lifetime's
    empty.id = comm.id;
    empty.nranks = comm.nranks;
    empty.nnodes = comm.nnodes;
    empty.ranks = comm.ranks;
    it = records_.emplace(key, std::move(empty)).first;
  } else {
    by_calls_.erase({calls_of(it->second), key});
  }
  std::size_t room = max_entries_ - entries_;
  add_lifetime(it->second, comm, room);
  entries_ = max_entries_ - room;
  by_calls_.emplace(calls_of(it->second), key);
  return !dropped;
}

std::vector<workload::Communicator> FinishedComms::with(const std::vector<workload::Communicator>& live) const {
  std::map<Key, workload::Communicator> all = records_;
  for (const workload::Communicator& c : live) {
    auto [it, fresh] = all.emplace(key_of(c), c);
    std::size_t unbounded = SIZE_MAX;
    if (!fresh) add_lifetime(it->second, c, unbounded);
  }
  std::vector<workload::Communicator> out;
  out.reserve(all.size());
  for (auto& [key, c] : all) out.push_back(std::move(c));
  return out;  // the map's order: by id first
}

}  // namespace cctune::tuner
