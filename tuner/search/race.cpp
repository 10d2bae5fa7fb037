#include "tuner/search/race.hpp"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace cctune::tuner::search {
namespace {

std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g s", s);
  return buf;
}

// A point's cost beyond its cap: warm-up, agreement, launch. Measured, never below zero.
double fixed_per_point(const RoundCost& c) {
  if (c.points == 0) return 0;
  return std::max(0.0, c.measure_s / static_cast<double>(c.points) - c.max_time_s);
}

}  // namespace

std::vector<std::string> race_order(const std::vector<RaceArm>& arms, const std::string& reference) {
  std::vector<RaceArm> sorted = arms;
  std::stable_sort(sorted.begin(), sorted.end(), [&](const RaceArm& a, const RaceArm& b) {
    if ((a.group == reference) != (b.group == reference)) return a.group == reference;
    return a.tier < b.tier;
  });
  std::vector<std::string> out;
  for (const RaceArm& a : sorted) out.push_back(a.group);
  return out;
}

double first_max_time(const RaceBudget& budget, std::size_t groups, std::size_t points_per_group, double startup_guess_s) {
  if (groups == 0 || points_per_group == 0) return budget.max_time_s;
  const double share =
      (budget.budget_s / 2 - static_cast<double>(groups) * startup_guess_s) / static_cast<double>(groups * points_per_group);
  return std::clamp(share, 0.01, std::max(0.01, budget.max_time_s));
}

std::vector<JobPoint> race_focus(const std::vector<ShapeWidth>& widths, double share) {
  std::vector<ShapeWidth> sorted = widths;
  std::stable_sort(sorted.begin(), sorted.end(), [](const ShapeWidth& a, const ShapeWidth& b) { return a.width_us > b.width_us; });
  for (ShapeWidth& w : sorted) w.width_us = std::max(0.0, w.width_us);
  double total = 0;
  for (const ShapeWidth& w : sorted) total += w.width_us;
  if (!(total > 0)) return {};
  std::vector<JobPoint> out;
  double carried = 0;
  for (const ShapeWidth& w : sorted) {
    if (!out.empty() && carried >= share * total) break;
    out.push_back(w.shape);
    carried += w.width_us;
  }
  if (out.size() == widths.size()) return {};
  return out;
}

double predicted_round_s(const std::map<std::string, RoundCost>& costs, const std::vector<std::string>& groups, double max_time_s,
                         std::size_t points) {
  double total = 0;
  for (const std::string& g : groups) {
    const auto it = costs.find(g);
    if (it == costs.end()) continue;
    const RoundCost& c = it->second;
    total += c.startup_s + static_cast<double>(points > 0 ? points : c.points) * (fixed_per_point(c) + max_time_s);
  }
  return total;
}

RaceStep next_race_round(const RaceState& s, const RaceBudget& b) {
  const double left = b.budget_s - s.elapsed_s;
  if (!s.contenders.empty() && !s.variants_done) {
    RaceRound r{s.round + 1, {s.reference}, std::min(2 * s.max_time_s, 8 * b.max_time_s), false, s.focus};
    if (s.chosen != s.reference) r.groups.push_back(s.chosen);
    for (const std::string& g : s.contenders)
      if (std::find(r.groups.begin(), r.groups.end(), g) == r.groups.end()) r.groups.push_back(g);
    const double need = predicted_round_s(s.costs, r.groups, r.max_time_s, s.focus.empty() ? 0 : s.focus_points);
    const std::string where =
        s.focus.empty() ? "" : " on the " + std::to_string(s.focus.size()) + " shape(s) that carry most of their intervals";
    if (r.max_time_s > s.max_time_s && need <= left)
      return {r, std::to_string(s.contenders.size()) + " group(s) still undecided: again beside the reference" + where + " at " +
                     seconds(r.max_time_s) + " a point (about " + seconds(need) + ")"};
  }
  if (s.variants_done || b.variant_points == 0)
    return {std::nullopt,
            s.contenders.empty() ? "decided" : "the budget ends with " + std::to_string(s.contenders.size()) + " group(s) undecided"};
  // The variants: the chosen group's forced configs, at the space's cap if the budget allows,
  // shorter if not, not at all below a tenth of it.
  const auto it = s.costs.find(s.chosen);
  const RoundCost c = it != s.costs.end() ? it->second : RoundCost{};
  const double per_point = (left - c.startup_s) / static_cast<double>(b.variant_points) - fixed_per_point(c);
  const double cap = std::min(b.max_time_s, per_point);
  if (cap < b.max_time_s / 10)
    return {std::nullopt, "no budget left for the " + std::to_string(b.variant_points) + " algorithm/protocol/channel points of group " +
                              s.chosen + " (a larger --budget-s measures them)"};
  return {RaceRound{s.round + 1, {s.chosen}, cap, true, {}}, "the " + std::to_string(b.variant_points) +
                                                                 " algorithm/protocol/channel points of group " + s.chosen + " at " +
                                                                 seconds(cap) + " a point"};
}

void to_json(nlohmann::json& j, const RaceStep& step) {
  j = {{"why", step.why}, {"next", nullptr}};
  if (const auto& r = step.next)
    j["next"] = {
        {"round", r->round}, {"groups", r->groups}, {"max_time_s", r->max_time_s}, {"variants", r->variants}, {"shapes", r->shapes}};
}

void from_json(const nlohmann::json& j, RaceStep& step) {
  step.why = j.at("why").get<std::string>();
  step.next.reset();
  const nlohmann::json& n = j.at("next");
  if (n.is_null()) return;
  step.next = RaceRound{n.at("round").get<int>(), n.at("groups").get<std::vector<std::string>>(), n.at("max_time_s").get<double>(),
                        n.at("variants").get<bool>(), n.at("shapes").get<std::vector<JobPoint>>()};
}

}  // namespace cctune::tuner::search
