#include "app/job/verify_job.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <vector>

#include "app/ab/ab_document.hpp"
#include "app/ab/ab_groups.hpp"
#include "app/cli/session.hpp"
#include "app/job/job_race.hpp"
#include "app/job/profile_effect.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "runtime/signals.hpp"
#include "runtime/worker_process.hpp"

namespace cctune::app {
namespace {

namespace fs = std::filesystem;

constexpr double kConfidence = 0.95;  // the verdict's target, as every A/B command's
constexpr const char* kTimed = "the job's step time (profiler half: the steady steps' issue-to-issue time)";

void print_verdict(const AbRow& r, const JobArgs& args) {
  std::printf("# job: step time %s\n", verdict_line(r, AbUnit::Ms).c_str());
  if (r.verdict == Verdict::Undecided)
    std::printf(
        "# verify --job: undecided, so no verdict either way; run more pairs: --rounds %d, or --until-decided %d to add pairs "
        "until it is settled\n",
        r.rounds + std::max(1, r.more_pairs), std::max(2 * args.rounds, 12));
}

// The pair counts at which the race looks at its verdict: --rounds, then doubling up to
// --until-decided; none below the pairs a look's confidence needs.
std::vector<int> looks_of(const JobArgs& args) {
  if (args.until_decided == 0) return {args.rounds};
  std::vector<int> looks;
  for (int n = args.rounds; n < args.until_decided; n *= 2) looks.push_back(n);
  looks.push_back(args.until_decided);
  const int floor = pairs_for_confidence(per_look_confidence(kConfidence, static_cast<int>(looks.size())));
  std::vector<int> out;
  for (int n : looks)
    if (out.empty() || std::max(n, floor) > out.back()) out.push_back(std::max(n, floor));
  return out;
}

void write_summary(const std::string& dir, const std::string& profile, const JobArgs& args, const JobRace& race, const RaceBase& base,
                   const AbRow* row, const std::string& status, const std::string& no_change = {}) {
  AbDocument doc{.schema = "cctune.verify_job/1",
                 .subject = "the job's step time: NCCL's defaults against the profile, each run of the whole job",
                 .method = ab_method(kTimed),
                 .rounds = args.rounds,
                 .tolerance = args.tolerance,
                 .rows_key = {}};
  doc.extra = {{"status", status},
               {"profile", profile},
               {"command", args.command},
               {"runs", (fs::path(dir) / "job_runs.json").string()},
               {"pairs_done", static_cast<int>(race.runs().size() / 2)},
               {"caller_settings_removed", base.removed},
               {"caller_nccl_env", base.kept_nccl}};
  if (args.until_decided > 0) doc.extra["until_decided"] = args.until_decided;
  if (!no_change.empty()) doc.extra["no_change"] = no_change;
  if (args.steps) doc.extra["steps"] = *args.steps;
  if (row) doc.step = AbEntry{*row, AbUnit::Ms};
  const std::string out = (fs::path(dir) / "verify_job.json").string();
  write_ab_document(doc, out);
  std::printf("# verify: %s\n", text::terminal_text(out).c_str());
}

// The verdict after the race's last look: with --until-decided, a "same" whose interval still
// spans the tolerance is no answer to the question asked.
AbRow final_verdict(AbRow row, const JobArgs& args) {
  if (args.until_decided == 0 || decided(row, args.tolerance) || row.verdict == Verdict::Undecided) return row;
  row.verdict = Verdict::Undecided;
  char note[160];
  std::snprintf(note, sizeof note,
                "after %d pairs the interval still reaches past the +-%.1f %% tolerance: the step varies too much to tell", row.rounds,
                100 * args.tolerance);
  row.note = note;
  return row;
}

// The profile side's tuner records in its latest run.
std::optional<workload::TunerReport> profile_side_tuner(const JobRace& race) {
  for (auto r = race.runs().rbegin(); r != race.runs().rend(); ++r)
    if (r->side == "profile") return r->step.tuner;
  return std::nullopt;
}

}  // namespace

void say_caller_settings(const RaceBase& base) {
  if (base.removed.empty()) return;
  std::string names;
  for (const std::string& k : base.removed) names += (names.empty() ? "" : ", ") + text::log_text(k, 64);
  std::fprintf(stderr,
               "cctune: note: not passed to the job's runs from your environment: %s (a deployed profile or cctune's own settings "
               "would make 'NCCL defaults' something else; the profile side sets its own)\n",
               text::log_text(names, 1024).c_str());
}

int run_verify_job(Session& session, const std::string& profile_path, const JobArgs& args) {
  runtime::install_stop_handlers();
  check_ab_flags(args.rounds, args.tolerance);
  const ProfileUnderTest under = load_profile_under_test(profile_path, session.executable());
  const AbSide defaults = defaults_side();
  const AbSide profile = profile_side("profile", under.profile, under.path, under.plugin);
  const RaceBase base = race_base(runtime::current_environment(), {&defaults, &profile});
  const std::vector<int> looks = looks_of(args);
  JobRace race(race_settings(args, under.plugin, 2 * looks.back(), {"verify_job.json"}, base.env), args.force);
  const std::string dir = race.output_dir();
  say_caller_settings(base);
  std::printf("# verify --job: %d interleaved pairs of NCCL defaults / profile (%s)%s\n", looks.front(),
              text::terminal_text(under.path).c_str(),
              args.until_decided ? (", more up to " + std::to_string(looks.back()) + " until decided").c_str() : "");
  if (!under.profile.provenance.test_mode.empty())
    std::printf("# TEST MODE profile (%s): this checks the plumbing; its verdict is not performance\n",
                text::terminal_text(under.profile.provenance.test_mode).c_str());
  const double confidence = per_look_confidence(kConfidence, static_cast<int>(looks.size()));
  std::vector<double> a_ms, b_ms;
  AbRow row;
  const RaceEnd end{[&](const std::string& status) { write_summary(dir, under.path, args, race, base, nullptr, status); },
                    [&](const std::string& signal) {
                      return "verify --job stopped by " + signal + " after " + std::to_string(a_ms.size()) + " pairs; the runs are in " +
                             text::terminal_text(dir);
                    }};
  const std::optional<int> early = race_or_stop(
      [&]() -> std::optional<int> {
        for (const int look : looks) {
          while (static_cast<int>(a_ms.size()) < look) {
            const auto [a, b] = race.run_pair(defaults, profile);
            a_ms.push_back(a), b_ms.push_back(b);
            // A profile that changed nothing makes both sides NCCL's defaults: no race to run.
            if (const std::string why = a_ms.size() == 1 ? changed_nothing(under.profile, profile_side_tuner(race)) : ""; !why.empty()) {
              std::printf("# verify --job: the profile changed nothing in this job: %s; no verdict\n", why.c_str());
              write_summary(dir, under.path, args, race, base, nullptr, "no-change", why);
              return exit_code::ok;
            }
            if (a_ms.size() == 1 && !under.profile.rules.empty())
              if (const std::string why = rules_inert(profile_side_tuner(race)); !why.empty())
                std::printf("# note: the profile's rules steered nothing in this job (%s); only its env is raced\n", why.c_str());
          }
          row = job_verdict(a_ms, b_ms, args.tolerance, confidence);
          if (decided(row, args.tolerance) || look == looks.back()) break;
          std::printf("# after %d pairs: speedup %.3f [%.3f, %.3f], not decided at +-%.1f %%: more pairs\n", row.rounds, row.speedup,
                      row.ci_low, row.ci_high, 100 * args.tolerance);
        }
        return std::nullopt;
      },
      end);
  if (early) return *early;
  row = final_verdict(row, args);
  print_verdict(row, args);
  write_summary(dir, under.path, args, race, base, &row, "complete");
  if (row.verdict == Verdict::Slower) {
    std::fprintf(stderr, "cctune: verify --job: the job's step time is longer with the profile than with NCCL's defaults, beyond noise\n");
    return exit_code::regressed;
  }
  return row.verdict == Verdict::Undecided ? exit_code::undecided : exit_code::ok;
}

}  // namespace cctune::app
