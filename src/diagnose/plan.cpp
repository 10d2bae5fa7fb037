#include "diagnose/plan.hpp"

#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"

namespace cctune::diagnose {
namespace {

StagePlan skipped(std::string name, std::string what, std::string why) {
  return {std::move(name), std::move(what), 0, 0, std::move(why)};
}

std::string duration(double s) {
  const long total = std::lround(s);
  if (total < 60) return fmt::format("{} s", total);
  if (total < 3600) return fmt::format("{} min {:02} s", total / 60, total % 60);
  return fmt::format("{:.1f} h", s / 3600);
}

}  // namespace

DiagnosePlan plan_diagnosis(const PlanInputs& in) {
  if (in.nodes < 1 || in.gpus_per_node < 1)
    throw UsageError(fmt::format("diagnose needs at least one node with one GPU (got {} node(s), {} GPU(s) per node)",
                                 in.nodes, in.gpus_per_node),
                     "give --nodes N and --gpus G of 1 or more");
  DiagnosePlan plan;
  plan.inputs = in;
  plan.pair_rounds = node_pair_rounds(in.nodes, in.pairs);
  const double points_s = in.sizes * in.collectives * in.point_s;
  const std::string one_node = "one node: the network needs two or more";

  if (in.gpus_per_node >= 2)
    plan.stages.push_back({"intra-node", "each node's GPUs alone, all nodes at once; per-GPU straggler analysis", 1,
                           in.comm_setup_s + points_s, {}});
  else
    plan.stages.push_back(skipped("intra-node", "each node's GPUs alone",
                                  "one GPU per node: no intra-node collective (GPUs are compared in the all-node run)"));
  const int rounds = static_cast<int>(plan.pair_rounds.size());
  if (in.nodes >= 2) {
    plan.stages.push_back({"pair probe", "raw network between node pairs (" + to_string(in.pairs) + ")", rounds,
                           rounds * in.probe_pair_s, {}});
    plan.stages.push_back({"pair collective", in.backend + " AllReduce between the same node pairs, same rounds", rounds,
                           rounds * (in.comm_setup_s + points_s), {}});
    plan.stages.push_back({"all nodes", "one run over every GPU of every node", 1, in.comm_setup_s + points_s, {}});
  } else {
    plan.stages.push_back(skipped("pair probe", "raw network between node pairs", one_node));
    plan.stages.push_back(skipped("pair collective", in.backend + " AllReduce between node pairs", one_node));
    plan.stages.push_back(skipped("all nodes", "one run over every node", one_node + " (the intra-node stage covers it)"));
  }
  for (const StagePlan& s : plan.stages) plan.total_s += s.estimate_s;
  return plan;
}

std::string format_plan(const DiagnosePlan& plan) {
  const PlanInputs& in = plan.inputs;
  std::string out = fmt::format("# cctune diagnose plan: {} node(s) x {} GPU(s), {} rank(s); pairs {}\n", in.nodes,
                                in.gpus_per_node, static_cast<long>(in.nodes) * in.gpus_per_node, to_string(in.pairs));
  out += fmt::format("#  {:<15} {:>7} {:>11}  {}\n", "stage", "rounds", "estimate", "what");
  for (const StagePlan& s : plan.stages) {
    if (s.rounds == 0)
      out += fmt::format("   {:<15} {:>7} {:>11}  skipped: {}\n", s.name, "-", "-", s.skipped_why);
    else
      out += fmt::format("   {:<15} {:>7} {:>11}  {}\n", s.name, s.rounds, duration(s.estimate_s), s.what);
  }
  out += fmt::format("# estimate: {} ({} size(s) x {} collective(s) at up to {:.1f} s a point, {:.0f} s to set up "
                     "each round's communicators, {:.0f} s a pair probe)\n",
                     duration(plan.total_s), in.sizes, in.collectives, in.point_s, in.comm_setup_s, in.probe_pair_s);
  return out;
}

}  // namespace cctune::diagnose
