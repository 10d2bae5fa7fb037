#pragma once
// What rank 0 sees of the job's transports, for the space's `requires` (tuner/space/
// requirements.hpp): RDMA NICs near the GPUs, IP interfaces, GPUs without NVLink (from the
// topology) and what the caller's environment forces (NVLS off, sockets between nodes). Rank
// 0 decides and hands the facts to the others as JSON, so that every rank plans the same groups.
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/results.hpp"
#include "tuner/space/feasibility.hpp"

namespace cctune::app {

// Physical IP interfaces that are up on the first node of `topology` (results holding a
// cluster topology), fastest first; names that cannot be written unquoted into an NCCL list
// (anything but letters, digits, '.', '_', '-', ':') are left out. None without a topology.
struct IpInterface {
  std::string name;
  double speed_Gbps = 0;  // 0: unknown
};
std::vector<IpInterface> ip_interfaces_of(const Results& topology);

// The transport facts as JSON: from the topology and the caller's environment.
nlohmann::json transport_facts(const Results& topology, const std::map<std::string, std::string>& caller_env);
// Copies facts made by transport_facts into `ctx` (ranks and nodes are the caller's to fill).
void apply_transport_facts(const nlohmann::json& facts, tuner::SpaceContext& ctx);

}  // namespace cctune::app
