// `cctune replay W [--profile P]`: one captured training step's collectives, in capture order
// (a captured group's inside one ncclGroupStart/End), issued back to back on this allocation's
// NCCL workers and timed as one unit, under NCCL's defaults and, with a profile, under the
// profile in interleaved rounds (docs/WORKLOAD.md "Replay"). --dry-run plans and prints the
// step only.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "app/ab/ab_groups.hpp"
#include "app/cli/command.hpp"
#include "app/cli/session.hpp"
#include "app/cli/sweep_options.hpp"
#include "app/cli/version_check.hpp"
#include "app/commands/commands_list.hpp"
#include "app/replay/replay_report.hpp"
#include "app/run/job_run.hpp"
#include "app/run/plan_agreement.hpp"
#include "app/run/prepared_job.hpp"
#include "app/workload_input/workload_input.hpp"
#include "comm/rank_agreement.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "runtime/nccl_job.hpp"
#include "runtime/plan_check.hpp"
#include "runtime/signals.hpp"
#include "tuner/export/outputs.hpp"
#include "tuner/profile/profile.hpp"
#include "workload/replay_plan.hpp"
#include "workload/workload_json.hpp"

namespace cctune::app {
namespace {

namespace wl = cctune::workload;

void print_step(const wl::ReplayStep& step) {
  // Communicator ids come from the capture: each printed line is escaped for the terminal.
  std::istringstream lines(wl::format_replay(step));
  for (std::string line; std::getline(lines, line);) std::printf("%s\n", text::terminal_text(line).c_str());
}

// The step's calls as the workers issue them: the plan's point space, named by its largest call.
void put_step_in_plan(const wl::ReplayStep& step, SweepPlan& plan) {
  if (step.calls.size() > runtime::kMaxReplayCalls)
    throw UsageError("the step holds " + std::to_string(step.calls.size()) + " call shapes, more than replay issues (" +
                         std::to_string(runtime::kMaxReplayCalls) + ")",
                     "replay a workload with fewer shapes (cctune workload import of fewer ranks' captures)");
  for (const wl::CapturedCall& c : step.calls)
    if (c.repeats > static_cast<std::uint64_t>(runtime::kMaxReplayRepeats))
      throw UsageError("a call shape runs " + std::to_string(c.repeats) + " times per step, more than replay issues (" +
                           std::to_string(runtime::kMaxReplayRepeats) + ")",
                       "check the workload's step count (cctune workload import --steps N)");
  PointStep issued = step.issued();
  const ReplayCall largest = issued.calls.at(step.largest());  // the step's name: its op and root are the space's
  PointSpace& space = plan.space;
  space.points = std::move(issued);
  space.ops = {largest.op};
  space.root = largest.root;
  space.all_roots = false;
  space.placements = {false};
  plan.measure.check = false;  // the step's outputs are not checked (collectives/backend.hpp)
}

class ReplayCommand : public Command {
 public:
  void setup(CLI::App& parent) override {
    add_to(parent, "replay", "issue one captured step's collectives back to back and time it: NCCL's defaults against --profile");
    // The step is the point space and the groups are NCCL's defaults and the profile: no grid
    // or config flags to take.
    add_ab_measurement_options(*cmd_, args_, "cctune-replay");
    add_placement_options(*cmd_, args_);
    cmd_->add_option("workload", workload_, "workload.json (cctune workload import --steps N)")->required();
    cmd_->add_option("--profile", profile_, "profile.json to compare against NCCL's defaults");
    cmd_->add_option("--ranks", ranks_, "the job's rank count to plan for (communicators of this many ranks are replayed)")
        ->check(CLI::PositiveNumber);
    cmd_->add_option("--rounds", rounds_, "rounds (with --profile: interleaved A/B rounds)")->capture_default_str();
    cmd_->add_option("--tolerance", tolerance_, "with --profile: slower when the whole speedup CI is below 1/(1+tolerance)")
        ->capture_default_str();
    cmd_->add_flag("--dry-run", dry_run_, "print the step that would be issued; measure nothing");
    cmd_->add_flag("--force", force_, "replace the results in the -o directory (without it, replay refuses to start)");
  }
  bool needs_mpi() const override { return !dry_run_; }

  int run(Session& session) override {
    if (dry_run_) return dry_run();
    RankComm& comm = session.comm();
    check_flags();
    const wl::Workload w = load_workload_on_rank0(session, workload_, "").workload;  // one file for every rank; positional
    ProfileUnderTest under_test;
    agree_on_errors(comm, [&] {
      if (!profile_.empty()) under_test = load_profile_under_test(profile_, session.executable());
    });
    const std::string& profile_abs = under_test.path;
    const bool ab = !profile_.empty();
    wl::ReplayStep step;
    // The points: the step planned for this placement's rank count.
    const auto make_points = [&](SweepPlan& plan, JobShape shape) {
      agree_on_errors(comm, [&] {
        if (ranks_ > 0 && ranks_ != shape.nranks)
          throw UsageError(
              "--ranks " + std::to_string(ranks_) + " differs from this allocation's " + std::to_string(shape.nranks) + " NCCL ranks",
              "replay on an allocation of that many GPUs, or drop --ranks");
        step = wl::plan_replay(w, shape.nranks);
        put_step_in_plan(step, plan);
        runtime::check_plan(plan);
      });
      plan.nccl.groups = ab ? ab_round_groups(under_test.profile, under_test.plugin, profile_abs, rounds_)
                            : std::vector<runtime::ConfigGroup>(static_cast<std::size_t>(rounds_), runtime::ConfigGroup{"default", {}, {}});
      return SettingsParts{};
    };
    PreparedJob prepared = prepare_nccl_job(session, args_, make_points, force_ ? ExistingResults::Replace : ExistingResults::Refuse);
    const SweepPlan& plan = prepared.plan;
    if (comm.rank() == 0) {
      print_step(step);
      std::printf("# replay: %d %s of the step on %d ranks%s\n", rounds_, ab ? "interleaved rounds" : "rounds", prepared.job.shape().nranks,
                  ab ? (", NCCL defaults / profile " + text::terminal_text(profile_abs)).c_str() : ", NCCL defaults");
      if (plan.nccl.test_shared_gpu > 0)
        std::printf("# TEST MODE shared-gpu (--test-shared-gpu %d): this checks the plumbing; its times are not performance\n",
                    plan.nccl.test_shared_gpu);
    }
    return run_prepared_job(session, prepared,
                            [&](const Results& results, const runtime::SweepOutcome&) { return report(results, step, plan.output_dir); });
  }

 private:
  // The step the run would issue, refused where the run would refuse it: the same flags, the
  // same limits (put_step_in_plan) and the same plan check, on --ranks or the largest
  // communicator's rank count in place of the allocation's.
  int dry_run() const {
    check_flags();
    const wl::Workload w = load_workload(workload_, "").workload;  // positional: no flag to name
    const int nranks = ranks_ > 0 ? ranks_ : largest_communicator(w);
    const wl::ReplayStep step = wl::plan_replay(w, nranks);
    SweepPlan plan = resolve_settings(args_, true, true);
    put_step_in_plan(step, plan);
    runtime::check_plan(plan);
    print_step(step);
    if (!profile_.empty())
      std::printf("# profile %s: without --dry-run the step runs under NCCL's defaults and under this profile\n",
                  text::terminal_text(profile_).c_str());
    return exit_code::ok;
  }

  void check_flags() const {
    if (args_.backend != "nccl") throw UsageError("replay runs on the NCCL backend only", "drop --backend");
    check_ab_flags(rounds_, tolerance_);
  }

  int report(const Results& results, const wl::ReplayStep& step, const std::string& dir) const {
    const bool ab = !profile_.empty();
    const ReplayTimes times = collect_replay_times(results, rounds_, ab);
    const ReplayVerdict verdict = judge_replay(times, AbOptions{.tolerance = tolerance_});
    std::printf("%s\n", step_time_line(verdict, ab).c_str());
    AbDocument doc = replay_document(step, times, verdict, tolerance_, ab);
    doc.extra["workload"] = std::filesystem::absolute(workload_).lexically_normal().string();
    doc.extra["results"] = (std::filesystem::path(dir) / "results.json").string();
    if (ab) doc.extra["profile"] = std::filesystem::absolute(profile_).lexically_normal().string();
    if (const std::string mode = test_mode_of(results); !mode.empty()) doc.extra["test_mode"] = mode;
    const std::string out = (std::filesystem::path(dir) / "replay.json").string();
    write_ab_document(doc, out);
    std::printf("# replay: %s\n", text::terminal_text(std::filesystem::absolute(out).string()).c_str());
    if (doc.extra.value("regressed", false)) {
      std::fprintf(stderr, "cctune: replay: the step is slower with the profile than with NCCL's defaults, beyond noise\n");
      return exit_code::regressed;
    }
    if (!times.failures.empty() || !(verdict.default_ms > 0) || (ab && !verdict.compared)) {
      std::fprintf(stderr, "cctune: replay: %zu run(s) failed or measured nothing (reasons in %s/results.json)\n", times.failures.size(),
                   text::terminal_text(dir).c_str());
      return exit_code::failure;
    }
    return exit_code::ok;
  }

  static int largest_communicator(const wl::Workload& w) {
    int n = 0;
    for (const auto& c : w.communicators) n = std::max(n, c.nranks);
    if (n == 0) throw UsageError("the workload holds no communicator", "pass a workload.json written by cctune workload import or merge");
    return n;
  }

  SweepArgs args_;
  std::string workload_, profile_;
  int ranks_ = 0;
  int rounds_ = 6;
  double tolerance_ = 0.02;
  bool dry_run_ = false;
  bool force_ = false;  // --force: replace the results in -o
};

}  // namespace

std::unique_ptr<Command> make_replay_command() { return std::make_unique<ReplayCommand>(); }

}  // namespace cctune::app
