#include "app/job/tune_job.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "app/ab/ab_document.hpp"
#include "app/job/job_race.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "runtime/signals.hpp"
#include "runtime/worker_process.hpp"
#include "tuner/export/outputs.hpp"
#include "tuner/search/survivors.hpp"

namespace cctune::app {
namespace {

namespace fs = std::filesystem;

struct Candidate {
  std::string name;
  tuner::TuneOutputs outputs;
  AbSide side;
  std::vector<double> a_ms, b_ms;  // its pairs: NCCL defaults, the candidate
  double median_speedup() const { return job_verdict(a_ms, b_ms, 0).speedup; }
};

bool changes_nothing(const tuner::Profile& p) { return p.env.empty() && p.rules.empty(); }

// The profile tune would write, then the next best groups, then the rules under NCCL's default
// environment; none that changes nothing, none twice.
std::vector<Candidate> candidates_of(const TuneJobRequest& r) {
  std::vector<Candidate> out;
  auto add = [&](std::string name, tuner::TuneOutputs outputs) {
    if (out.size() >= static_cast<std::size_t>(r.candidates) || changes_nothing(outputs.profile)) return;
    for (const Candidate& c : out)
      if (tuner::same_effect(c.outputs.profile, outputs.profile)) return;
    out.push_back({std::move(name), std::move(outputs), {}, {}, {}});
  };
  const tuner::TuneOutputs tuned = tuner::tune_results(*r.results, r.options);
  add("tuned-" + tuned.group, tuned);
  std::vector<tuner::GroupScore> groups = tuned.groups;
  std::sort(groups.begin(), groups.end(), [](const auto& a, const auto& b) { return a.job_speedup > b.job_speedup; });
  std::string reference;
  for (const tuner::GroupScore& g : groups) {
    if (g.env.empty() && reference.empty()) reference = g.group;
    if (!g.eligible || g.group == tuned.group || g.env.empty()) continue;
    tuner::TuneOptions forced = r.options;
    forced.force_group = g.group;
    try {
      add("group-" + g.group, tuner::tune_results(*r.results, forced));
    } catch (const Error& e) {  // a group whose decisions make no valid profile is no candidate
      std::printf("# candidate group %s left out: %s\n", text::terminal_text(g.group).c_str(), e.what());
    }
  }
  if (!reference.empty() && reference != tuned.group) {
    tuner::TuneOptions rules_only = r.options;
    rules_only.force_group = reference;
    add("rules-only", tuner::tune_results(*r.results, rules_only));
  }
  return out;
}

void write_summary(const TuneJobRequest& r, const std::string& dir, const RaceBase& base, const std::vector<Candidate>& all,
                   const Candidate* winner, const AbRow* row, const std::string& status) {
  AbDocument doc{.schema = "cctune.tune_job/1",
                 .subject = "the job's step time: NCCL's defaults against each candidate profile, raced by successive halving",
                 .method = ab_method("the job's step time from the profiler half"),
                 .rounds = r.job.rounds,
                 .tolerance = r.job.tolerance,
                 .rows_key = "standings",
                 .step_key = "winner"};
  for (const Candidate& c : all)
    doc.rows.push_back({job_verdict(c.a_ms, c.b_ms, r.job.tolerance),
                        AbUnit::Ms,
                        {{"candidate", c.name},
                         {"group", c.outputs.group},
                         {"rules", c.outputs.profile.rules.size()},
                         {"env", c.outputs.profile.env},
                         {"pairs", c.a_ms.size()}}});
  if (winner && row) doc.step = AbEntry{*row, AbUnit::Ms, {{"candidate", winner->name}, {"pairs", row->rounds}}};
  doc.extra = {
      {"status", status}, {"command", r.job.command}, {"caller_settings_removed", base.removed}, {"caller_nccl_env", base.kept_nccl}};
  write_ab_document(doc, (fs::path(dir) / "tune_job.json").string());
}

}  // namespace

namespace {

// Stages of 2, 4, 8... pairs per survivor, then the winner topped up to --rounds pairs; at most
// 1.5x the half stays until the stages reach --rounds pairs (noise protection, halving_survivors).
int planned_runs(std::size_t candidates, int rounds) {
  int planned = 0;
  for (std::size_t n = candidates, pairs = 2; n > 1; pairs *= 2) {
    planned += static_cast<int>(2 * n * pairs);
    const std::size_t half = (n + 1) / 2;
    n = static_cast<int>(pairs) >= rounds ? half : std::min(n, tuner::search::most_survivors(half, tuner::search::default_overlap_cap));
  }
  return planned + 2 * rounds;
}

// What every run starts from: the keys any candidate sets are not passed on from the caller.
RaceBase base_for(const AbSide& defaults, const std::vector<Candidate>& all) {
  std::vector<AbSide> settings;
  for (const Candidate& c : all) settings.push_back({c.name, c.outputs.profile.env});
  std::vector<const AbSide*> sides{&defaults};
  for (const AbSide& side : settings) sides.push_back(&side);
  return race_base(runtime::current_environment(), sides);
}

void write_candidates(std::vector<Candidate>& all, const fs::path& dir, const std::string& plugin) {
  for (std::size_t i = 0; i < all.size(); ++i) {
    const fs::path cdir = dir / "candidates" / (std::to_string(i + 1) + "-" + directory_word(all[i].name));
    fs::create_directories(cdir);
    const tuner::OutputPaths paths = tuner::write_tune_outputs(all[i].outputs, cdir.string(), plugin);
    all[i].side = profile_side(all[i].name, all[i].outputs.profile, paths.profile, plugin);
    std::printf("# candidate %zu: %s (group %s, %zu rules)\n", i + 1, text::terminal_text(all[i].name).c_str(),
                text::terminal_text(all[i].outputs.group).c_str(), all[i].outputs.profile.rules.size());
  }
}

// Successive halving over the candidates, then the winner topped up to `rounds` pairs.
Candidate& race_candidates(JobRace& race, const AbSide& defaults, std::vector<Candidate>& all, int rounds) {
  std::vector<Candidate*> alive;
  for (Candidate& c : all) alive.push_back(&c);
  for (int pairs = 2; alive.size() > 1; pairs *= 2) {
    for (int p = 0; p < pairs; ++p)
      for (Candidate* c : alive) {
        const auto [a, b] = race.run_pair(defaults, c->side);
        c->a_ms.push_back(a), c->b_ms.push_back(b);
      }
    std::stable_sort(alive.begin(), alive.end(),
                     [](const Candidate* x, const Candidate* y) { return x->median_speedup() > y->median_speedup(); });
    std::vector<std::pair<std::vector<double>, std::vector<double>>> ranked;
    for (const Candidate* c : alive) ranked.emplace_back(c->a_ms, c->b_ms);
    std::vector<Candidate*> kept;
    for (std::size_t i : halving_survivors(ranked, pairs, rounds)) kept.push_back(alive[i]);
    alive = std::move(kept);
    std::printf("# stage of %d pairs: %zu left (best %s, median speedup %.3f)\n", pairs, alive.size(),
                text::terminal_text(alive[0]->name).c_str(), alive[0]->median_speedup());
  }
  Candidate& w = *alive[0];
  while (static_cast<int>(w.a_ms.size()) < rounds) {
    const auto [a, b] = race.run_pair(defaults, w.side);
    w.a_ms.push_back(a), w.b_ms.push_back(b);
  }
  return w;
}

}  // namespace

int run_tune_job(const TuneJobRequest& r) {
  runtime::install_stop_handlers();
  if (r.candidates < 1 || r.candidates > 8) throw UsageError("--candidates must be 1..8", "use e.g. --candidates 3");
  std::vector<Candidate> all = candidates_of(r);
  if (all.empty()) {
    std::printf("# tune --job: the sweep found nothing that changes NCCL's defaults for this job; nothing to race, no profile written\n");
    return exit_code::ok;
  }
  const AbSide defaults = defaults_side();
  const RaceBase base = base_for(defaults, all);
  // Refuses an earlier race's outputs (or removes them with --force) before anything is written.
  JobRace race(race_settings(r.job, r.plugin, planned_runs(all.size(), r.job.rounds),
                             {"tune_job.json", "candidates", "profile.json", "nccl.env", "nccl_tuner.conf", "job_time.json"}, base.env),
               r.job.force);
  const fs::path dir = race.output_dir();
  say_caller_settings(base);
  write_candidates(all, dir, r.plugin);
  const Candidate* winner = nullptr;
  const RaceEnd end{[&](const std::string& status) { write_summary(r, dir.string(), base, all, nullptr, nullptr, status); },
                    [&](const std::string& signal) {
                      return "tune --job stopped by " + signal + "; no profile written; the runs are in " +
                             text::terminal_text(dir.string());
                    }};
  if (const std::optional<int> stopped = race_or_stop(
          [&]() -> std::optional<int> {
            winner = &race_candidates(race, defaults, all, r.job.rounds);
            return std::nullopt;
          },
          end))
    return *stopped;
  const Candidate& w = *winner;
  const AbRow row = job_verdict(w.a_ms, w.b_ms, r.job.tolerance);
  std::printf("# tune --job: best %s: step time %s\n", text::terminal_text(w.name).c_str(), verdict_line(row, AbUnit::Ms).c_str());
  if (row.verdict == Verdict::Undecided) {
    write_summary(r, dir.string(), base, all, &w, &row, "undecided");
    std::printf("# tune --job: undecided; no profile written: raise --rounds to %d\n",
                row.rounds + row.more_pairs);  // the note is on the verdict line
    return exit_code::undecided;
  }
  if (row.verdict != Verdict::Faster) {
    write_summary(r, dir.string(), base, all, &w, &row, "no-gain");
    std::printf("# tune --job: nothing beats NCCL's defaults on this job beyond noise (tolerance %.1f %%); no profile written\n",
                100 * r.job.tolerance);
    return exit_code::ok;
  }
  const tuner::OutputPaths paths = tuner::write_tune_outputs(w.outputs, dir.string(), r.plugin);
  write_summary(r, dir.string(), base, all, &w, &row, "complete");
  std::printf("# profile: %s\n# env: %s\n", text::shell_word(paths.profile).c_str(), text::shell_word(paths.env_file).c_str());
  return exit_code::ok;
}

}  // namespace cctune::app
