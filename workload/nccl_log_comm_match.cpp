#include "workload/nccl_log_comm_match.hpp"

#include <algorithm>
#include <map>
#include <tuple>

namespace cctune::workload::nccl_log {
namespace {

struct Match {
  std::string id;
  std::vector<int> ranks;
};

// Adds one process's view of a communicator to `into` under `id`, as its own reader would have.
void add_part(const Communicator& part, const std::string& id, WorkloadBuilder& into) {
  const int rank = part.ranks.empty() ? -1 : part.ranks.front();
  for (const CallStats& s : part.calls) {
    CallStats& target = into.add_call(id, part.nranks, part.nnodes, rank, s.shape);
    target.calls += s.calls - 1;  // add_call counted one
    target.applied = s.applied;
    target.first_call = s.first_call;
  }
  for (const CallGroup& g : part.groups)
    for (std::uint64_t i = 0; i < g.calls; ++i) into.add_group(id, part.nranks, part.nnodes, rank, g.members);
  if (part.groups_not_recorded > 0) {
    const std::vector<CallShape> too_many(max_group_members + 1);
    for (std::uint64_t i = 0; i < part.groups_not_recorded; ++i) into.add_group(id, part.nranks, part.nnodes, rank, too_many);
  }
}

}  // namespace

long add_matched_communicators(const WorkloadBuilder& unmapped, const std::vector<UnmappedComm>& comms, WorkloadBuilder& into) {
  const Workload parts = unmapped.finish("nccl-log", {});
  std::map<std::string, const UnmappedComm*> info;
  for (const UnmappedComm& c : comms) info.emplace(c.local_id, &c);
  // In order of first appearance, so the ids do not depend on pointer values.
  std::vector<const Communicator*> order;
  for (const Communicator& c : parts.communicators) order.push_back(&c);
  const auto seen = [&](const Communicator* c) {
    const auto it = info.find(c->id);
    return it == info.end() ? std::uint32_t(-1) : it->second->first_seen;
  };
  std::stable_sort(order.begin(), order.end(), [&](const Communicator* a, const Communicator* b) { return seen(a) < seen(b); });

  std::map<std::tuple<int, std::uint64_t, std::uint32_t>, std::vector<Match>> matches;
  for (const Communicator* part : order) {
    const auto it = info.find(part->id);
    const int rank = part->ranks.empty() ? -1 : part->ranks.front();
    if (it == info.end() || rank < 0 || it->second->signed_calls == 0) {
      add_part(*part, "unmapped:" + part->id, into);
      continue;
    }
    const UnmappedComm& c = *it->second;
    auto& candidates = matches[{part->nranks, c.signature, c.signed_calls}];
    auto match = std::find_if(candidates.begin(), candidates.end(), [&](const Match& m) {
      return static_cast<int>(m.ranks.size()) < part->nranks && std::find(m.ranks.begin(), m.ranks.end(), rank) == m.ranks.end();
    });
    if (match == candidates.end()) match = candidates.insert(candidates.end(), Match{"unmapped:" + part->id, {}});
    match->ranks.push_back(rank);
    add_part(*part, match->id, into);
  }
  long matched = 0;
  for (const auto& [key, list] : matches)
    for (const Match& m : list) matched += m.ranks.size() >= 2 ? 1 : 0;
  return matched;
}

}  // namespace cctune::workload::nccl_log
