#pragma once
// What rank 0 sees of the job's transports, for the space's `requires` (tuner/space/
// requirements.hpp): RDMA NICs near the GPUs, IP interfaces, GPUs without NVLink (from the
// topology) and what the caller's environment forces (NVLS off, sockets between nodes). Rank
// 0 decides and hands the facts to the others (broadcast_as), so that every rank plans the same groups.
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

// The facts rank 0 hands the others (tuner::SpaceContext's fields of the same names).
struct TransportFacts {
  std::vector<std::string> nearest_nics;
  std::vector<std::string> ip_interfaces;
  std::vector<std::string> fastest_interfaces;
  bool gpus_without_nvlink = false;
  bool caller_disables_nvls = false;
  bool caller_forces_socket = false;
  bool operator==(const TransportFacts&) const = default;
};
// Its one JSON form, for broadcast_as; the reader names a missing or mistyped field in one line.
void to_json(nlohmann::json& j, const TransportFacts& f);
void from_json(const nlohmann::json& j, TransportFacts& f);

// The transport facts from the topology and the caller's environment.
TransportFacts transport_facts(const Results& topology, const std::map<std::string, std::string>& caller_env);
// Copies `facts` into `ctx` (ranks and nodes are the caller's to fill).
void apply_transport_facts(const TransportFacts& facts, tuner::SpaceContext& ctx);

}  // namespace cctune::app
