#include "tuner/space/requirements.hpp"

namespace cctune::tuner {
namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) out += (i ? "," : "") + names[i];
  return out;
}

std::string nodes_text(int nnodes) { return std::to_string(nnodes) + (nnodes == 1 ? " node" : " nodes"); }

// Between nodes NCCL takes an RDMA NIC where it finds one near the GPUs, unless the caller
// turns that off; otherwise its socket transport (NCCL's net.cc tries IB first, then Socket).
std::string socket_unmet(const SpaceContext& ctx) {
  if (ctx.nnodes < 2) return "matters only across nodes (NCCL's socket transport); this job has " + nodes_text(ctx.nnodes);
  if (ctx.caller_forces_socket || ctx.nearest_nics.empty()) return {};
  return "the nodes talk over RDMA (" + joined(ctx.nearest_nics) +
         " near the GPUs), not NCCL's socket transport (NCCL_NET=Socket or NCCL_IB_DISABLE=1 in the environment would make them)";
}

std::string pcie_unmet(const SpaceContext& ctx) {
  if (!ctx.gpus_without_nvlink) return "matters only where GPUs lack NVLink; the topology shows NVLink on every GPU, or no GPU";
  if (ctx.nranks > 0 && ctx.nranks <= ctx.nnodes)
    return "matters only between GPUs of one node; this job has " + std::to_string(ctx.nranks) + " rank(s) on " + nodes_text(ctx.nnodes);
  return {};
}

}  // namespace

std::string unmet_requirement(GroupRequirement r, const SpaceContext& ctx) {
  switch (r) {
    case GroupRequirement::Net:
      if (ctx.nnodes < 2) return "matters only across nodes (the network transport); this job has " + nodes_text(ctx.nnodes);
      return {};
    case GroupRequirement::Rdma:
      if (ctx.nearest_nics.empty()) return "needs RDMA NICs near the GPUs; none were found";
      if (ctx.caller_forces_socket)
        return "the caller's environment sends traffic between nodes over sockets (NCCL_NET=Socket or NCCL_IB_DISABLE=1)";
      return {};
    case GroupRequirement::Socket: return socket_unmet(ctx);
    case GroupRequirement::SeveralInterfaces:
      if (ctx.ip_interfaces.size() < 2)
        return "needs two or more physical IP interfaces that are up; the topology shows " + std::to_string(ctx.ip_interfaces.size());
      return {};
    case GroupRequirement::Pcie: return pcie_unmet(ctx);
  }
  return "unknown requirement";
}

ResolvedValue resolve_placeholder(const std::string& key, const std::string& placeholder, const SpaceContext& ctx) {
  // '=' prefix: exact names, not prefixes (the syntax of NCCL_IB_HCA and NCCL_SOCKET_IFNAME alike)
  if (placeholder == "{nearest_nics}") {
    if (ctx.nearest_nics.empty()) return {{}, key + " is derived from the NICs nearest the GPUs; none were found"};
    return {"=" + joined(ctx.nearest_nics), {}};
  }
  if (placeholder == "{fastest_interfaces}") {
    if (ctx.fastest_interfaces.empty()) return {{}, key + " is derived from the fastest IP interfaces; the topology shows none that is up"};
    return {"=" + joined(ctx.fastest_interfaces), {}};
  }
  return {placeholder, {}};  // a plain value
}

}  // namespace cctune::tuner
