#include "app/run/plan_difference.hpp"

#include <algorithm>
#include <functional>
#include <vector>

#include "core/collective.hpp"

namespace cctune::app {

using runtime::SweepPlan;

namespace {

// A value as the plan's JSON holds it, for the message: lists joined by commas.
std::string show(const nlohmann::json& v) {
  if (v.is_null()) return "unset";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_array()) {
    std::string out;
    for (const auto& e : v) out += (out.empty() ? "" : ",") + show(e);
    return out;
  }
  return v.dump();
}

bool same_groups(const runtime::NcclSettings& a, const runtime::NcclSettings& b) {
  // A group's skip rules come from the space's plan and are not recorded; label and env are.
  return std::equal(a.groups.begin(), a.groups.end(), b.groups.begin(), b.groups.end(),
                    [](const runtime::ConfigGroup& x, const runtime::ConfigGroup& y) { return x.label == y.label && x.env == y.env; });
}

bool same_nccl(const SweepPlan& a, const SweepPlan& b) {
  const runtime::NcclSettings& x = a.nccl;
  const runtime::NcclSettings& y = b.nccl;
  return x.gpus == y.gpus && same_groups(x, y) && x.emulate_nodes == y.emulate_nodes && x.point_timeout_s == y.point_timeout_s &&
         x.group_timeout_s == y.group_timeout_s && x.graph == y.graph && x.test_shared_gpu == y.test_shared_gpu && x.configs == y.configs &&
         a.space.impls == b.space.impls && x.strategy == y.strategy;
}

struct PlanField {
  const char* key;  // the plan JSON's name for it, as the message names it
  std::function<bool(const SweepPlan&, const SweepPlan&)> same;
};

const std::vector<PlanField>& compared_fields() {
  static const std::vector<PlanField> fields = {
      {"backend", [](const SweepPlan& a, const SweepPlan& b) { return a.backend == b.backend; }},
      {"collectives", [](const SweepPlan& a, const SweepPlan& b) { return collectives_of(a.space) == collectives_of(b.space); }},
      {"dtype", [](const SweepPlan& a, const SweepPlan& b) { return dtypes_of(a.space) == dtypes_of(b.space); }},
      {"op", [](const SweepPlan& a, const SweepPlan& b) { return a.space.ops == b.space.ops; }},
      // The root is part of a plan with a rooted collective only (collectives agree by now).
      {"root",
       [](const SweepPlan& a, const SweepPlan& b) {
         return !has_rooted(a.space) || (a.space.all_roots == b.space.all_roots && a.space.root == b.space.root);
       }},
      {"placements", [](const SweepPlan& a, const SweepPlan& b) { return a.space.placements == b.space.placements; }},
      {"iters", [](const SweepPlan& a, const SweepPlan& b) { return a.measure.batch_iters == b.measure.batch_iters; }},
      {"warmup_iters", [](const SweepPlan& a, const SweepPlan& b) { return a.measure.warmup_iters == b.measure.warmup_iters; }},
      {"check", [](const SweepPlan& a, const SweepPlan& b) { return a.measure.check == b.measure.check; }},
      // Another backend was named above; an MPI plan's NCCL settings are the defaults on both sides.
      {"nccl", same_nccl}};
  return fields;
}

}  // namespace

std::string first_plan_difference(const SweepPlan& before, const SweepPlan& now) {
  for (const PlanField& f : compared_fields()) {
    if (f.same(before, now)) continue;
    const nlohmann::json a = to_json(before), b = to_json(now);
    return std::string(f.key) + " is " + show(a.value(f.key, nlohmann::json())) + " there, " + show(b.value(f.key, nlohmann::json())) +
           " now";
  }
  return {};
}

}  // namespace cctune::app
