#include "app/sweep/race_sweep.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>

#include "app/sweep/race_plan.hpp"
#include "comm/rank_comm_typed.hpp"
#include "core/error.hpp"
#include "core/race_rounds.hpp"
#include "core/text.hpp"
#include "runtime/worker_plan.hpp"
#include "tuner/search/race.hpp"
#include "tuner/selection/do_no_harm.hpp"
#include "tuner/selection/group_score.hpp"

namespace cctune::app {
namespace {

using tuner::search::RaceRound;
using tuner::search::RaceState;

// Passes every event on, marks each run with its round, and keeps the runs: rank 0 scores them
// between rounds.
class RaceLedger final : public Reporter {
 public:
  explicit RaceLedger(Reporter& next) : next_(next) {}
  int round = 0;
  std::vector<RunResult> runs;

  void begin_sweep(long total_steps) override { next_.begin_sweep(total_steps); }
  void begin_run(const RunResult& run) override {
    runs.push_back(run);
    runs.back().race_round = round;
    next_.begin_run(runs.back());
  }
  void begin_collective(Collective c, const std::string& context) override { next_.begin_collective(c, context); }
  void measuring(long step, const std::string& label) override { next_.measuring(step, label); }
  void point(const PointResult& p) override {
    if (!runs.empty()) runs.back().points.push_back(p);
    next_.point(p);
  }
  void screened(const PointResult& p) override {
    if (!runs.empty()) runs.back().screened.push_back(p);
    next_.screened(p);
  }
  void end_collective() override { next_.end_collective(); }
  void run_timing(double duration_s, double startup_s) override {
    if (!runs.empty()) {
      runs.back().duration_s = duration_s;
      runs.back().startup_s = startup_s;
    }
    next_.run_timing(duration_s, startup_s);
  }
  void fail_run(const std::string& reason) override {
    if (!runs.empty()) {
      runs.back().status = RunStatus::Failed;
      runs.back().reason = reason;
    }
    next_.fail_run(reason);
  }
  void note(const std::string& line) override { next_.note(line); }
  void finish(MetaStatus status) override { next_.finish(status); }

 private:
  Reporter& next_;
};

tuner::search::RaceTier tier_of(const tuner::GroupSpec& g) {
  using tuner::GroupRequirement;
  const auto has = [&](GroupRequirement r) { return std::find(g.requires_.begin(), g.requires_.end(), r) != g.requires_.end(); };
  if (has(GroupRequirement::Socket) || has(GroupRequirement::Rdma) || has(GroupRequirement::Pcie) ||
      has(GroupRequirement::SeveralInterfaces))
    return tuner::search::RaceTier::Transport;
  return has(GroupRequirement::Net) ? tuner::search::RaceTier::Network : tuner::search::RaceTier::Any;
}

// Rank 0, after a round: what it cost per group, and where the race stands.
void record_round(RaceState& state, const RaceLedger& ledger, const RaceRound& done) {
  for (const RunResult& run : ledger.runs)
    if (run.race_round == done.round)
      state.costs[run.group] = {run.startup_s, std::max(0.0, run.duration_s - run.startup_s), run.points.size(), done.max_time_s};
  state.round = done.round;
  state.max_time_s = done.variants ? state.max_time_s : done.max_time_s;
  state.variants_done = state.variants_done || done.variants;
}

// Rank 0: tune's reading of every point so far: its reference, its choice and the undecided.
void score_round(RaceState& state, const RaceLedger& ledger, const RaceInputs& in, const runtime::SweepPlan& plan) {
  Results so_far;
  so_far.meta = in.meta;
  so_far.runs = ledger.runs;
  fold_race_rounds(so_far);
  const tuner::TuneOutputs t = tuner::tune_results(so_far, in.tune_options(so_far));
  state.reference = t.reference;
  state.chosen = t.group;
  state.contenders.clear();
  // A group that takes SMs is never deployed on collective time (do_no_harm.hpp): racing it
  // longer cannot change the profile; `tune --job` races it on the job. Measured beside compute
  // (--overlap) it is judged by collective + compute like any group, and raced like one.
  for (const tuner::UndecidedGroup& u : t.undecided.contenders)
    for (const tuner::GroupScore& g : t.groups)
      if (g.group == u.group && !tuner::sm_cost_unmeasured(g)) state.contenders.push_back(u.group);
  std::vector<std::string> racing = state.contenders;
  if (state.chosen != state.reference) racing.push_back(state.chosen);
  state.focus = race_focus_of(plan, t, racing);
}

}  // namespace

void say_race_plan(double budget_s) {
  if (budget_s <= 0) return;
  std::printf(
      "# race within --budget-s %.0f: the estimate above is the grid's; the race measures each group once at NCCL's own choice, "
      "then only the undecided, then the forced configs of the chosen group (docs/TUNING.md \"The race\")\n",
      budget_s);
}

runtime::SweepOutcome run_race(Session& session, const runtime::NcclJob& job, const runtime::SweepPlan& plan, Reporter& reporters,
                               const RaceInputs& in) {
  RankComm& comm = session.comm();
  const bool rank0 = comm.rank() == 0;
  std::vector<tuner::search::RaceArm> arms;
  for (const runtime::ConfigGroup& g : plan.nccl.groups) {
    tuner::search::RaceArm arm{g.label, tuner::search::RaceTier::Any};
    if (in.space)
      for (const tuner::GroupSpec& spec : in.space->groups)
        if (spec.name == g.label) arm.tier = tier_of(spec);
    arms.push_back(arm);
  }
  RaceState state;
  // Tune's reference until its first scores name it (tune_results reads it the same way).
  const auto& groups = plan.nccl.groups;
  state.reference = state.chosen = groups[tuner::reference_index(groups, [](const runtime::ConfigGroup& g) { return g.label; })].label;
  tuner::search::RaceBudget budget{in.budget_s, plan.measure.stop.max_time_s, 0};
  RaceRound round{0, tuner::search::race_order(arms, state.reference), 0, false, {}};
  const std::size_t per_group = runtime::enumerate_points(round_plan(plan, round), job.shape().nranks).size();
  round.max_time_s = tuner::search::first_max_time(budget, round.groups.size(), per_group, 3.0);
  if (plan.nccl.configs.size() > 1) {
    RaceRound variants = round;
    variants.variants = true;
    variants.groups.resize(1);
    budget.variant_points = runtime::enumerate_points(round_plan(plan, variants), job.shape().nranks).size();
  }
  if (rank0)
    std::printf("# race: %zu group(s) at NCCL's own choice first, %.3g s a point, within --budget-s %.0f\n", round.groups.size(),
                round.max_time_s, in.budget_s);
  RaceLedger ledger(reporters);
  runtime::SweepOutcome total;
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    ledger.round = round.round;
    const runtime::SweepOutcome outcome = job.run(round_plan(plan, round), ledger);
    // Counted as groups, not runs: round 0 runs each once, and a group that failed is scored
    // out of the race, so a later failure is another group's.
    if (round.round == 0) total.groups = outcome.groups;
    total.failed_groups = std::min(total.groups, total.failed_groups + outcome.failed_groups);
    if (outcome.interrupted()) {
      total.stop_signal = outcome.stop_signal;
      return total;
    }
    tuner::search::RaceStep step;
    if (rank0) {
      state.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::string why;
      record_round(state, ledger, round);
      try {
        score_round(state, ledger, in, plan);
        RaceRound focused{0, {state.reference}, 0, false, state.focus};
        state.focus_points = state.focus.empty() ? 0 : runtime::enumerate_points(round_plan(plan, focused), job.shape().nranks).size();
      } catch (const std::exception& e) {
        // Nothing tune can score (every group failed, or no NCCL default to compare with): no
        // group is in the race any more; the variants still run in the reference.
        why = std::string("no scores (") + e.what() + "); ";
        state.contenders.clear();
        state.focus.clear();
        state.chosen = state.reference;
      }
      step = tuner::search::next_race_round(state, budget);
      step.why = why + step.why;
      std::printf("# race round %d done after %.0f s: %s\n", round.round, state.elapsed_s, text::terminal_text(step.why).c_str());
      std::fflush(stdout);
    }
    step = broadcast_as(comm, step, 0);
    if (!step.next) return total;
    round = *step.next;
  }
}

}  // namespace cctune::app
