#include "app/sweep/confirm_round.hpp"

#include <cstdio>
#include <filesystem>
#include <set>
#include <tuple>

#include "app/ab/ab_analysis.hpp"
#include "app/ab/ab_document.hpp"
#include "app/ab/ab_groups.hpp"
#include "app/ab/ab_samples.hpp"
#include "app/run/job_run.hpp"
#include "app/run/plan_agreement.hpp"
#include "comm/rank_agreement.hpp"
#include "comm/rank_comm_typed.hpp"
#include "core/collective_traits.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/json_depth.hpp"
#include "core/json_fields.hpp"
#include "core/text.hpp"
#include "core/units.hpp"

namespace cctune::app {
namespace {

constexpr const char* kSchema = "cctune.confirmation/1";
constexpr std::size_t kMaxConfirmationBytes = 4u << 20;  // a few thousand rows at most

// Rank 0: the proposed rules' sizes, each once, as the round's shapes (with the data type tune
// decided by, and the communicator the rule is for).
std::vector<JobPoint> shapes_to_confirm(const tuner::TuneOutputs& proposed) {
  std::vector<JobPoint> shapes;
  std::set<std::tuple<Collective, std::uint64_t>> seen;
  for (const tuner::SizeDecision& d : proposed.decisions)
    if (d.switched && is_tunable(d.shape.collective) && seen.insert({d.shape.collective, d.size_bytes}).second)
      shapes.push_back({.collective = d.shape.collective,
                        .dtype = d.dtype,
                        .size_bytes = d.size_bytes,
                        .nranks = d.shape.nranks,
                        .nnodes = d.shape.nnodes});
  return shapes;
}

// The sweep's run settings with the round's shapes and groups: NCCL's own choice only, once
// per size, out-of-place, the first op and root.
runtime::SweepPlan confirm_plan(const runtime::SweepPlan& sweep, const std::vector<JobPoint>& shapes, const ProfileUnderTest& under_test,
                                int rounds, const std::string& dir) {
  runtime::SweepPlan plan = sweep;
  plan.output_dir = dir;
  PointShapes points;
  for (const JobPoint& s : shapes) points.shapes.push_back({s.collective, s.dtype, s.size_bytes});  // call shapes
  plan.space.points = std::move(points);
  plan.space.ops.resize(1);
  plan.space.all_roots = false;
  plan.space.placements = {false};
  plan.nccl.configs = {PointConfig{}};
  plan.nccl.strategy = tuner::search::StrategyKind::Exhaustive;
  plan.nccl.groups = ab_round_groups(under_test.profile, under_test.plugin, under_test.path, rounds);
  return plan;
}

// Rank 0, at the round's end: per size the paired speedup and its verdict, on the terminal, in
// confirmation.json and in `confirmed` (the same rows, for the sweep's own profile).
int conclude(const Results& round, const runtime::SweepOutcome& outcome, const Results& sweep, const std::vector<JobPoint>& shapes,
             const ConfirmSettings& settings, const std::string& dir, std::vector<tuner::RuleConfirmation>& confirmed) {
  const VerifySamples in = collect_samples(round, settings.rounds);
  const AbReport rep = analyze(in.samples, AbOptions{.tolerance = settings.tolerance});
  AbDocument doc{.schema = kSchema,
                 .subject = "each proposed rule's size: NCCL's own choice with the proposed profile against without",
                 .method = ab_method("per round, the median iteration time of the size"),
                 .rounds = settings.rounds,
                 .tolerance = settings.tolerance};
  doc.extra = {{"sweep_start_time", sweep.meta.start_time}, {"sweep_argv", sweep.meta.argv}};
  // A size the round could not measure (a group failed: a crash or a hang of the proposed
  // configuration) is recorded as such, and its rule is not written.
  std::set<std::tuple<Collective, std::uint64_t>> read;
  for (const AbRow& r : rep.rows) read.insert({r.collective, r.size_bytes});
  for (const JobPoint& s : shapes) {
    const Collective c = s.collective;
    const std::uint64_t size = s.size_bytes;
    if (read.count({c, size})) continue;
    std::printf("# confirm %-14s %9s: not measured in every round (%d of %d groups failed; reasons in %s/results.json)\n",
                to_string(c).c_str(), format_size(size).c_str(), outcome.failed_groups, outcome.groups, text::terminal_text(dir).c_str());
    // The shape tune proposed the rule for (no run may have measured anything to name it).
    doc.rows.push_back(
        {std::nullopt, AbUnit::Us, {{"collective", to_string(c)}, {"nranks", s.nranks}, {"nnodes", s.nnodes}, {"size_bytes", size}}});
    confirmed.push_back({.shape = {c, s.nranks, s.nnodes}, .size_bytes = size, .speedup = 0, .ci_low = 0, .ci_high = 0, .faster = false});
  }
  for (std::size_t i = 0; i < rep.rows.size(); ++i) {
    const AbRow& r = rep.rows[i];
    std::printf("# confirm %-14s %9s: %s\n", row_name(in.keys[i]).c_str(), format_size(r.size_bytes).c_str(),
                verdict_line(r, AbUnit::Us).c_str());
    doc.rows.push_back(
        {r,
         AbUnit::Us,
         {{"collective", to_string(r.collective)}, {"nranks", in.nranks}, {"nnodes", in.nnodes}, {"size_bytes", r.size_bytes}}});
    confirmed.push_back({.shape = {r.collective, in.nranks, in.nnodes},
                         .size_bytes = r.size_bytes,
                         .speedup = r.speedup,
                         .ci_low = r.ci_low,
                         .ci_high = r.ci_high,
                         .faster = r.verdict == Verdict::Faster});
  }
  write_ab_document(doc, (std::filesystem::path(dir) / "confirmation.json").string());
  return exit_code::ok;
}

}  // namespace

std::string confirm_dir_of(const std::string& sweep_output_dir) { return (std::filesystem::path(sweep_output_dir) / "confirm").string(); }

ConfirmRound run_confirm_round(Session& session, const runtime::NcclJob& job, const runtime::SweepPlan& sweep_plan,
                               const std::optional<runtime::GpuQuery>& gpus, const Results& results, const tuner::TuneOutputs* proposed,
                               const ConfirmSettings& settings) {
  RankComm& comm = session.comm();
  const std::string dir = confirm_dir_of(sweep_plan.output_dir);
  const std::vector<JobPoint> shapes =
      broadcast_as(comm, comm.rank() == 0 && proposed ? shapes_to_confirm(*proposed) : std::vector<JobPoint>{}, 0);
  if (shapes.empty() || settings.rounds <= 0) return {};
  JobFiles files = open_job_files(session, dir, ExistingResults::Replace);
  const std::string profile_path = std::filesystem::absolute(std::filesystem::path(dir) / "proposed-profile.json").string();
  agree_on_errors(comm, [&] {
    if (comm.rank() == 0) write_file_atomically(profile_path, tuner::format_profile(proposed->profile));
  });
  ProfileUnderTest under_test;
  try {
    // Every node's workers read the proposed profile: the sweep's folder must be on a shared file system.
    agree_on_errors(comm, [&] { under_test = load_profile_under_test(profile_path, session.executable()); });
  } catch (const Error& e) {
    if (comm.rank() == 0)
      std::printf("# confirmation round skipped: %s (the profile is written as tuned, unconfirmed)\n", text::terminal_text(e.what_only()).c_str());
    return {};
  }
  const runtime::SweepPlan plan = confirm_plan(sweep_plan, shapes, under_test, settings.rounds, dir);
  agree_on_plan(comm, to_json(plan));
  if (comm.rank() == 0)
    std::printf("# confirmation round: %zu rule size(s), %d interleaved rounds of NCCL's defaults / the proposed profile\n", shapes.size(),
                settings.rounds);
  JobRun run;
  run.initial.meta = sweep_meta(session, plan, gpus);
  run.files = std::move(files);
  run.measure = [&](Reporter& reporters) { return job.run(plan, reporters); };
  ConfirmRound out;
  run.conclude = [&](const Results& round, const runtime::SweepOutcome& outcome) {
    return conclude(round, outcome, results, shapes, settings, dir, out.confirmations);
  };
  out.status = run_job(session, std::move(run));
  return out;
}

std::vector<tuner::RuleConfirmation> read_confirmations(const std::string& results_path, const Results& results) {
  const std::string path = (std::filesystem::path(confirm_dir_of(std::filesystem::path(results_path).parent_path().string())) /
                            "confirmation.json").string();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return {};
  const std::string fix = "remove " + path + " (tune then writes the profile unconfirmed), or sweep again";
  const std::string text = read_file(path, kMaxConfirmationBytes);
  if (json_nests_deeper_than(text)) throw UsageError(path + " nests deeper than " + std::to_string(max_json_depth) + " levels", fix);
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  if (!doc.is_object()) throw UsageError(path + " is not a JSON object", fix);
  const JsonFields top(doc, path, fix);
  if (top.get<std::string>("schema") != kSchema) throw UsageError(path + ": schema is not " + std::string(kSchema), fix);
  // A confirmation of an earlier sweep in the same folder says nothing about this one.
  if (top.get<std::string>("sweep_start_time") != results.meta.start_time || top.array("sweep_argv") != nlohmann::json(results.meta.argv))
    return {};
  std::vector<tuner::RuleConfirmation> out;
  const nlohmann::json& rows = top.array("rows");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const JsonFields row = top.element("rows", i);
    tuner::RuleConfirmation c;
    try {
      c.shape.collective = parse_collective(row.get<std::string>("collective"));
    } catch (const UsageError& e) {
      throw UsageError(row.path("collective") + ": " + e.what_only(), fix);
    }
    c.shape.nranks = row.get<int>("nranks");
    c.shape.nnodes = row.get<int>("nnodes");
    c.size_bytes = row.get<std::uint64_t>("size_bytes");
    c.speedup = row.get<double>("speedup");
    c.ci_low = row.get<double>("ci_low");
    c.ci_high = row.get<double>("ci_high");
    c.faster = row.get<std::string>("verdict") == to_string(Verdict::Faster);
    out.push_back(c);
  }
  return out;
}

}  // namespace cctune::app
