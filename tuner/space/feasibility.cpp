#include "tuner/space/feasibility.hpp"

namespace cctune::tuner {
namespace {

std::string channel_reason(const PointConfig& config, int channel_ceiling) {
  if (config.channels > 0 && channel_ceiling > 0 && config.channels > channel_ceiling)
    return std::to_string(config.channels) + " channels exceed this group's ceiling of " + std::to_string(channel_ceiling) +
           " (a group with NCCL_MIN_CTAS/NCCL_MAX_CTAS raises it)";
  return {};
}

bool reduces_or_gathers(Collective c) {
  return c == Collective::AllReduce || c == Collective::AllGather || c == Collective::ReduceScatter;
}

// NVLS and CollNet: what NCCL implements at all. Whether it offers them here is NCCL's call.
bool is_nvls(Algorithm a) { return a == Algorithm::Nvls || a == Algorithm::NvlsTree; }

std::string structural_reason(Collective c, Algorithm a, Protocol p, const SpaceContext& ctx) {
  if (is_nvls(a)) {
    if (!reduces_or_gathers(c)) return "NVLS implements allreduce, allgather and reducescatter only";
    if (a == Algorithm::NvlsTree && (c != Collective::AllReduce || ctx.nnodes < 2)) return "NVLS tree is allreduce across nodes only";
    if (p != Protocol::Simple) return "NVLS runs the simple protocol only";
  }
  if (a == Algorithm::CollnetDirect || a == Algorithm::CollnetChain) {
    if (!reduces_or_gathers(c)) return "CollNet implements allreduce, allgather and reducescatter only";
    if (a == Algorithm::CollnetChain && c != Collective::AllReduce) return "CollNet chain implements allreduce only";
    if (p != Protocol::Simple) return "CollNet runs the simple protocol only";
  }
  return {};
}

std::string offered_list(AlgorithmSet offered) {
  const std::string names = join_algorithm_names(offered);
  return names.empty() ? "nothing" : names;
}

}  // namespace

std::string unsupported_reason(Collective c, const PointConfig& config, const SpaceContext& ctx, int channel_ceiling,
                               bool group_disables_nvls) {
  const std::string coll = to_string(c);
  if (config.algo.has_value() != config.proto.has_value())
    return "an algorithm and a protocol are forced together (the plugin sets one cost-table entry); \"auto\" must be paired with \"auto\"";
  if (!config.algo)
    return config.channels > 0 ? "a channel count is forced together with an algorithm and a protocol; with \"auto\" NCCL picks all three"
                               : std::string();
  // alltoall, sendrecv, gather and scatter are grouped sends and receives: NCCL's p2p path
  // never consults the tuner, so only process-level groups can change them.
  if (!is_tunable(c)) return "NCCL's point-to-point path (" + coll + ") ignores the tuner plugin: only NCCL's own choice (auto) is measured";
  const Algorithm a = *config.algo;
  const Protocol p = *config.proto;
  const std::string name(to_string(a));
  if (ctx.nranks == 1) return "a single rank: NCCL copies locally whatever is forced";
  if ((c == Collective::Broadcast || c == Collective::Reduce) && a != Algorithm::Ring) return "NCCL runs " + coll + " with ring only";
  if (a == Algorithm::Tree && c != Collective::AllReduce) return "NCCL's tree algorithm implements allreduce only";
  if (a == Algorithm::Pat) {
    if (c != Collective::AllGather && c != Collective::ReduceScatter) return "PAT implements allgather and reducescatter only";
    if (ctx.nranks > 0 && ctx.nnodes > 0 && ctx.nranks != ctx.nnodes)
      return "PAT needs one GPU per node (here " + std::to_string(ctx.nranks) + " ranks on " + std::to_string(ctx.nnodes) + " node(s))";
    if (p != Protocol::Simple) return "PAT runs the simple protocol only";
  }
  if (std::string why = structural_reason(c, a, p, ctx); !why.empty()) return why;
  if (is_nvls(a)) {
    if (group_disables_nvls) return "this group sets NCCL_NVLS_ENABLE=0";
    if (ctx.caller_disables_nvls) return "the caller's environment sets NCCL_NVLS_ENABLE=0";
  }
  if (auto it = ctx.offered.find(c); it != ctx.offered.end() && !contains(it->second, a))
    return "NCCL's cost table offered no " + name + " for " + coll + " on this job's communicators (it offered " + offered_list(it->second) + ")";
  return channel_reason(config, channel_ceiling);
}

}  // namespace cctune::tuner
