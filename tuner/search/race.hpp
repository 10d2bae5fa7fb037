#pragma once
// The racing sweep's schedule (issue 46; docs/TUNING.md "The race"): which config groups to
// measure in the next round, for how long a point, and when to stop. The sweep measures every
// group once at NCCL's own choice, briefly; then only the groups whose gain the noise leaves
// undecided (tune's own judgement, tuner/selection/undecided.hpp) run again beside the
// reference, each round with twice the time a point and, in a workload sweep, on the shapes that
// carry their intervals (race_focus), while the budget allows; then the forced
// algorithm/protocol/channel variants run in the chosen group alone. Pure: the sweep measures
// and scores, this decides from what a round cost.
#include <cstddef>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/job_point.hpp"

namespace cctune::tuner::search {

// How close a group's settings are to this job's transport: groups that exist for it
// (sockets over sockets, RDMA over RDMA, PCIe between GPUs without NVLink) pay most often and
// run first, so that a budget cut falls on the least likely.
enum class RaceTier { Transport = 0, Network = 1, Any = 2 };

struct RaceArm {
  std::string group;
  RaceTier tier = RaceTier::Any;
};

// The first round's order: `reference` first, then by tier, the space's order within a tier.
std::vector<std::string> race_order(const std::vector<RaceArm>& arms, const std::string& reference);

// What one group's last round cost, from its run's record.
struct RoundCost {
  double startup_s = 0;  // spawn, NCCL init, first warm-up
  double measure_s = 0;  // the rest of its wall time
  std::size_t points = 0;
  double max_time_s = 0;  // the round's time cap per point
};

struct RaceBudget {
  double budget_s = 120;           // the whole sweep's measuring time
  double max_time_s = 0.5;         // the space's time cap per point: the variants' and the rounds' ceiling x 8
  std::size_t variant_points = 0;  // points of the variants round (forced configs x shapes), 0: none
};

// The first round's time cap per point: every group once within half the budget, after a
// start-up guess per group, at most the space's cap and at least 10 ms.
double first_max_time(const RaceBudget& budget, std::size_t groups, std::size_t points_per_group, double startup_guess_s);

// One call shape of the sweep and how much of the race's undecided intervals it carries: the
// sum, over the undecided groups (and tune's choice), of weight x (the reference's half-width
// + the group's half-width) at that shape (tuner/selection/group_score.hpp's total_of).
struct ShapeWidth {
  JobPoint shape;
  double width_us = 0;
};

// The share of the undecided intervals' width a later round measures again: the shapes that
// carry it, widest first, stop once they reach it.
inline constexpr double kRaceFocusShare = 0.9;

// The shapes a later round measures again: widest first until they carry `share` of the whole
// width (at least one). Empty, meaning every shape, when they all would be, or when nothing has
// a width (no weights known yet).
std::vector<JobPoint> race_focus(const std::vector<ShapeWidth>& widths, double share = kRaceFocusShare);

struct RaceState {
  int round = 0;                           // the round just measured
  double elapsed_s = 0;                    // since the race began
  double max_time_s = 0;                   // that round's cap
  std::map<std::string, RoundCost> costs;  // per group, its last round
  std::string reference, chosen;           // tune's reference and choice so far
  std::vector<std::string> contenders;     // still undecided, best first
  std::vector<JobPoint> focus;             // the shapes the next round measures (race_focus; empty: all)
  std::size_t focus_points = 0;            // points a group measures with that focus (0: as in its last round)
  bool variants_done = false;
};

struct RaceRound {
  int round = 0;
  std::vector<std::string> groups;
  double max_time_s = 0;
  bool variants = false;  // the forced configs, in groups.front() alone
  // Later rounds: only these call shapes (where the undecided intervals' width lies, race_focus);
  // the others keep their earlier readings. Empty: every shape (round 0, the variants, a grid).
  std::vector<JobPoint> shapes;
};

struct RaceStep {
  std::optional<RaceRound> next;  // nullopt: the race is over
  std::string why;                // one line: why this round, or why it stops
};

RaceStep next_race_round(const RaceState& state, const RaceBudget& budget);

// Rank 0 decides each step and every rank runs it: the step's one codec ("next": null stops).
void to_json(nlohmann::json& j, const RaceStep& step);
void from_json(const nlohmann::json& j, RaceStep& step);

// What a round of `groups` at `max_time_s` a point should take, from their last rounds: their
// start-up, and their measuring time scaled by the caps (points stop at the cap or earlier), for
// `points` points a group (0: as many as in its last round).
double predicted_round_s(const std::map<std::string, RoundCost>& costs, const std::vector<std::string>& groups, double max_time_s,
                         std::size_t points = 0);

}  // namespace cctune::tuner::search
