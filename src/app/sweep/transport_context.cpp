#include "app/sweep/transport_context.hpp"

#include <strings.h>
#include <algorithm>
#include <cctype>
#include <tuple>

#include "app/sweep/space_sweep.hpp"
#include "core/json_fields.hpp"
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

void to_json(nlohmann::json& j, const TransportFacts& f) {
  j = {{"nearest_nics", f.nearest_nics},
       {"ip_interfaces", f.ip_interfaces},
       {"fastest_interfaces", f.fastest_interfaces},
       {"gpus_without_nvlink", f.gpus_without_nvlink},
       {"caller_disables_nvls", f.caller_disables_nvls},
       {"caller_forces_socket", f.caller_forces_socket}};
}

void from_json(const nlohmann::json& j, TransportFacts& f) {
  const JsonFields in(j, "transport facts", "run the same cctune build on every node");
  const auto names = [&](const char* key) {
    std::vector<std::string> out;
    const nlohmann::json& list = in.array(key);
    for (std::size_t i = 0; i < list.size(); ++i)
      out.push_back(in.read<std::string>(list[i], in.path(key) + "[" + std::to_string(i) + "]"));
    return out;
  };
  f.nearest_nics = names("nearest_nics");
  f.ip_interfaces = names("ip_interfaces");
  f.fastest_interfaces = names("fastest_interfaces");
  f.gpus_without_nvlink = in.get<bool>("gpus_without_nvlink");
  f.caller_disables_nvls = in.get<bool>("caller_disables_nvls");
  f.caller_forces_socket = in.get<bool>("caller_forces_socket");
}

TransportFacts transport_facts(const Results& topology, const std::map<std::string, std::string>& caller_env) {
  const std::vector<IpInterface> interfaces = ip_interfaces_of(topology);
  TransportFacts f;
  f.nearest_nics = nearest_nics_of(topology);
  f.ip_interfaces = names_of(interfaces);
  f.fastest_interfaces = fastest_of(interfaces);
  f.gpus_without_nvlink = gpus_without_nvlink(topology);
  f.caller_disables_nvls = env_is(caller_env, "NCCL_NVLS_ENABLE", "0");
  f.caller_forces_socket = env_is(caller_env, "NCCL_NET", "Socket") || env_is(caller_env, "NCCL_IB_DISABLE", "1");
  return f;
}

void apply_transport_facts(const TransportFacts& f, tuner::SpaceContext& ctx) {
  std::tie(ctx.nearest_nics, ctx.ip_interfaces, ctx.fastest_interfaces) = std::tie(f.nearest_nics, f.ip_interfaces, f.fastest_interfaces);
  std::tie(ctx.gpus_without_nvlink, ctx.caller_disables_nvls, ctx.caller_forces_socket) =
      std::tie(f.gpus_without_nvlink, f.caller_disables_nvls, f.caller_forces_socket);
}

}  // namespace cctune::app
