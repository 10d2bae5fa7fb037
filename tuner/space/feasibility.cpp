#include "tuner/space/feasibility.hpp"

namespace cctune::tuner {
namespace {

std::string channel_reason(const PointConfig& config, int channel_ceiling) {
  if (config.channels > 0 && channel_ceiling > 0 && config.channels > channel_ceiling)
    return std::to_string(config.channels) + " channels exceed this group's ceiling of " + std::to_string(channel_ceiling) +
           " (a group with NCCL_MIN_CTAS/NCCL_MAX_CTAS raises it)";
  return {};
}

}  // namespace

std::string unsupported_reason(Collective c, const PointConfig& config, const SpaceContext& ctx, int channel_ceiling) {
  const std::string& a = config.algo;
  const std::string& p = config.proto;
  const std::string coll = to_string(c);
  if ((a == "auto") != (p == "auto"))
    return "an algorithm and a protocol are forced together (the plugin sets one cost-table entry); \"auto\" must be paired with \"auto\"";
  if (a == "auto")
    return config.channels > 0 ? "a channel count is forced together with an algorithm and a protocol; with \"auto\" NCCL picks all three"
                               : std::string();
  if (ctx.nranks == 1) return "a single rank: NCCL copies locally whatever is forced";
  if ((c == Collective::Broadcast || c == Collective::Reduce) && a != "ring") return "NCCL runs " + coll + " with ring only";
  if (a == "tree" && c != Collective::AllReduce) return "NCCL's tree algorithm implements allreduce only";
  if (a == "pat") {
    if (c != Collective::AllGather && c != Collective::ReduceScatter) return "PAT implements allgather and reducescatter only";
    if (ctx.nranks > 0 && ctx.nnodes > 0 && ctx.nranks != ctx.nnodes)
      return "PAT needs one GPU per node (here " + std::to_string(ctx.nranks) + " ranks on " + std::to_string(ctx.nnodes) + " node(s))";
    if (p != "simple") return "PAT runs the simple protocol only";
  }
  if (a == "nvls" || a == "nvls_tree") {
    if (!ctx.nvls_enabled) return "NVLS is off (cctune never enables it; NCCL_NVLS_ENABLE stays unset or 0)";
    if (a == "nvls_tree" && (c != Collective::AllReduce || ctx.nnodes < 2)) return "NVLS tree is allreduce across nodes only";
    if (p != "simple") return "NVLS runs the simple protocol only";
  }
  if (a == "collnet_direct" || a == "collnet_chain") {
    if (!ctx.collnet_supported) return "CollNet needs a CollNet (SHARP) network plugin, which is not present";
    if (a == "collnet_chain" && c != Collective::AllReduce) return "CollNet chain implements allreduce only";
    if (p != "simple") return "CollNet runs the simple protocol only";
  }
  return channel_reason(config, channel_ceiling);
}

}  // namespace cctune::tuner
