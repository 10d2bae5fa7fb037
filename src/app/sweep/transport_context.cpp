#include "app/sweep/transport_context.hpp"

#include <strings.h>
#include <algorithm>
#include <cctype>

#include "app/sweep/space_sweep.hpp"
#include "topology/paths.hpp"
#include "topology/topology_section.hpp"

namespace cctune::app {
namespace {

bool listable_name(const std::string& name) {
  return !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' || c == ':';
  });
}

// NVLink as the topology's writer derived it; a probed node (no derived block) from its links.
bool has_gpu_without_nvlink(const topo::NodeTopology& node) {
  if (node.derived)
    return std::any_of(node.derived->gpus.begin(), node.derived->gpus.end(), [](const topo::GpuDerived& g) { return g.nvlink_GBps <= 0; });
  return std::any_of(node.gpus.begin(), node.gpus.end(), [](const topo::Gpu& g) {
    return std::none_of(g.nvlinks.begin(), g.nvlinks.end(), [](const topo::NvLink& l) { return l.active; });
  });
}

bool gpus_without_nvlink(const Results& topology) {
  const topo::Topology* t = topo::topology_of(topology);
  if (!t) return false;
  return std::any_of(t->nodes.begin(), t->nodes.end(), [](const topo::NodeTopology& n) { return has_gpu_without_nvlink(n); });
}

bool env_is(const std::map<std::string, std::string>& env, const char* key, const char* value) {
  const auto it = env.find(key);
  return it != env.end() && strcasecmp(it->second.c_str(), value) == 0;  // NCCL matches net names without case
}

std::vector<std::string> names_of(const std::vector<IpInterface>& list) {
  std::vector<std::string> out;
  for (const IpInterface& i : list) out.push_back(i.name);
  return out;
}

// Those at the highest known speed; all of them where no speed is known.
std::vector<std::string> fastest_of(const std::vector<IpInterface>& list) {
  std::vector<std::string> out;
  const double top = list.empty() ? 0 : list.front().speed_Gbps;
  for (const IpInterface& i : list)
    if (i.speed_Gbps == top) out.push_back(i.name);
  return out;
}

}  // namespace

std::vector<IpInterface> ip_interfaces_of(const Results& topology) {
  std::vector<IpInterface> out;
  const topo::Topology* t = topo::topology_of(topology);
  if (!t || t->nodes.empty()) return out;
  for (const topo::NetInterface* i : topo::ip_links(t->nodes.front()))
    if (listable_name(i->name)) out.push_back({i->name, topo::ip_link_Gbps(*i)});
  std::stable_sort(out.begin(), out.end(), [](const IpInterface& a, const IpInterface& b) { return a.speed_Gbps > b.speed_Gbps; });
  return out;
}

nlohmann::json transport_facts(const Results& topology, const std::map<std::string, std::string>& caller_env) {
  const std::vector<IpInterface> interfaces = ip_interfaces_of(topology);
  return {{"nearest_nics", nearest_nics_of(topology)},
          {"ip_interfaces", names_of(interfaces)},
          {"fastest_interfaces", fastest_of(interfaces)},
          {"gpus_without_nvlink", gpus_without_nvlink(topology)},
          {"caller_disables_nvls", env_is(caller_env, "NCCL_NVLS_ENABLE", "0")},
          {"caller_forces_socket", env_is(caller_env, "NCCL_NET", "Socket") || env_is(caller_env, "NCCL_IB_DISABLE", "1")}};
}

void apply_transport_facts(const nlohmann::json& facts, tuner::SpaceContext& ctx) {
  ctx.nearest_nics = facts.at("nearest_nics").get<std::vector<std::string>>();
  ctx.ip_interfaces = facts.at("ip_interfaces").get<std::vector<std::string>>();
  ctx.fastest_interfaces = facts.at("fastest_interfaces").get<std::vector<std::string>>();
  ctx.gpus_without_nvlink = facts.at("gpus_without_nvlink").get<bool>();
  ctx.caller_disables_nvls = facts.at("caller_disables_nvls").get<bool>();
  ctx.caller_forces_socket = facts.at("caller_forces_socket").get<bool>();
}

}  // namespace cctune::app
