#pragma once
// Where the ranks of one job run: every rank's host, which node (distinct host) each rank is
// on, and this rank's place among the ranks of its node. Gathered once per job (Session::
// layout) and passed down to the version check, the run's metadata, the topology gather,
// worker placement and the network probe, which each used to gather the hosts again.
#include <algorithm>
#include <string>
#include <vector>

namespace cctune {

struct JobLayout {
  std::vector<std::string> hosts;  // host of each rank, indexed by rank
  std::vector<int> node_of_rank;   // index into `nodes` for each rank
  std::vector<std::string> nodes;  // distinct hosts in order of their lowest rank
  int rank = 0;                    // this rank
  int local_rank = 0;              // this rank's index among the ranks of its host
  int ranks_on_node = 0;           // ranks on this rank's host

  // From every rank's host (as an allgather returns them) and this rank.
  static JobLayout from_hosts(std::vector<std::string> hosts, int rank) {
    JobLayout l;
    l.hosts = std::move(hosts);
    l.rank = rank;
    for (std::size_t r = 0; r < l.hosts.size(); ++r) {
      const auto it = std::find(l.nodes.begin(), l.nodes.end(), l.hosts[r]);
      l.node_of_rank.push_back(static_cast<int>(it - l.nodes.begin()));
      if (it == l.nodes.end()) l.nodes.push_back(l.hosts[r]);
    }
    const std::string& mine = l.hosts.at(static_cast<std::size_t>(rank));
    for (int r = 0; r < static_cast<int>(l.hosts.size()); ++r)
      if (l.hosts[static_cast<std::size_t>(r)] == mine) {
        ++l.ranks_on_node;
        if (r < rank) ++l.local_rank;
      }
    return l;
  }
  int nranks() const { return static_cast<int>(hosts.size()); }
  int nnodes() const { return static_cast<int>(nodes.size()); }
  const std::string& host() const { return hosts.at(static_cast<std::size_t>(rank)); }
  // The distinct hosts, sorted (results.json's meta.hostnames).
  std::vector<std::string> sorted_nodes() const {
    std::vector<std::string> out = nodes;
    std::sort(out.begin(), out.end());
    return out;
  }
};

}  // namespace cctune
