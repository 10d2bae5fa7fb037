#include "tuner/export/outputs.hpp"

#include <cstdio>
#include <filesystem>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/install_layout.hpp"
#include "core/text.hpp"
#include "core/units.hpp"
#include "tuner/export/env_file.hpp"
#include "tuner/export/tuner_conf.hpp"

namespace cctune::tuner {

namespace fs = std::filesystem;

std::string find_tuner_plugin(const std::string& executable_path, bool* found) {
  const auto path = find_installed_library(executable_path, kPluginFileName);
  if (found) *found = path.has_value();
  std::error_code ec;
  if (path) return fs::weakly_canonical(*path, ec).string();
  return library_candidates(executable_path, kPluginFileName).front().lexically_normal().string();
}

OutputPaths write_tune_outputs(const TuneOutputs& outputs, const std::string& dir, const std::string& plugin_path) {
  ensure_writable_directory(dir);
  const fs::path base = fs::absolute(fs::path(dir)).lexically_normal();
  OutputPaths paths{(base / "profile.json").string(), (base / "nccl.env").string(), (base / "nccl_tuner.conf").string(), {}};
  // Format everything first: a value that cannot be written fails before any file changes.
  const std::string profile_text = format_profile(outputs.profile);
  const std::string env_text = format_env_file(outputs.profile, {plugin_path, paths.profile});
  const std::string conf_text = format_example_tuner_conf(outputs.profile, outputs.rule_observed_channels);
  write_file_atomically(paths.profile, profile_text);
  write_file_atomically(paths.env_file, env_text);
  write_file_atomically(paths.tuner_conf, conf_text);
  if (outputs.job_weighted) {
    paths.job_time = (base / "job_time.json").string();
    write_file_atomically(paths.job_time, format_job_times(outputs).dump(1) + "\n");
  }
  const ProfileResult back = load_profile(paths.profile);
  if (!back.profile || !(*back.profile == outputs.profile))
    throw RuntimeFailure("profile.json written to " + paths.profile + " does not read back: " +
                             (back.profile ? "it reads as a different profile" : back.error),
                         "report this with the results file; it is a cctune bug");
  return paths;
}

nlohmann::json format_job_times(const TuneOutputs& outputs) {
  nlohmann::json shapes = nlohmann::json::array();
  for (const JobTime& t : outputs.job_times)
    shapes.push_back({{"collective", to_string(t.shape.collective)},
                      {"nranks", t.shape.nranks},
                      {"nnodes", t.shape.nnodes},
                      {"sizes", t.sizes},
                      {"default_ms", t.default_us / 1000.0},
                      {"profile_ms", t.profile_us / 1000.0},
                      {"difference_halfwidth_ms", t.halfwidth_us / 1000.0},
                      {"summary", format_job_time(t, outputs.job_per_step)}});
  return {{"schema", "cctune.job_time/1"}, {"per", outputs.job_per_step ? "step" : "capture"}, {"shapes", shapes}};
}

namespace {

// Group labels, env values, reasons and notes come from the results file: shown escaped, and cut
// (on a character boundary) to fit the line buffer.
std::string shown(const std::string& x) { return text::truncate_utf8(text::terminal_text(x), 300); }

std::string env_text(const std::map<std::string, std::string>& env) {
  std::string s;
  for (const auto& [k, v] : env) s += (s.empty() ? "" : " ") + shown(k) + "=" + shown(v);
  return s;
}

// The contenders the noise left undecided, and what would settle them.
void append_undecided(std::string& s, const UndecidedRace& race) {
  if (race.contenders.empty()) return;
  char line[512];
  s += "# undecided: " + std::to_string(race.contenders.size()) +
       " group(s) read faster than NCCL's defaults in the weighted time, but within noise, so not deployed:";
  constexpr std::size_t kShown = 4;  // the best ones; the rest are above, each with its interval
  for (std::size_t i = 0; i < race.contenders.size() && i < kShown; ++i) {
    const UndecidedGroup& c = race.contenders[i];
    std::snprintf(line, sizeof line, "%s %s x%.3f [%.3f, %.3f]", i ? "," : "", shown(c.group).c_str(), c.speedup, c.low, c.high);
    s += line;
  }
  if (race.contenders.size() > kShown) s += " and " + std::to_string(race.contenders.size() - kShown) + " more";
  std::snprintf(line, sizeof line,
                "\n#   to settle it: measure longer (%s after as few as %ld iterations: sweep again %s) or race them on the job: ",
                race.time_capped ? "points stopped at their time cap" : "points were noisy", race.fewest_iterations,
                race.time_capped ? "with a larger --budget-s (the race) or --max-time" : "on a quieter host or link");
  s += line;
  s += "cctune tune RESULTS --job -- <your job>\n";
}

// Every group's weighted score, and where it loses beyond noise (never a veto), then the group
// the scores chose that tune did not deploy.
void append_group_scores(std::string& s, const TuneOutputs& outputs) {
  char line[512];
  for (const GroupScore& g : outputs.groups) {
    if (g.eligible)
      std::snprintf(line, sizeof line, "#   group %-20s x%.3f [%.3f, %.3f] over NCCL defaults in the weighted time (%zu sizes; geometric mean x%.3f)\n",
                    shown(g.group).c_str(), g.job_speedup, g.speedup_low, g.speedup_high, g.sizes, g.geomean_speedup);
    else
      std::snprintf(line, sizeof line, "#   group %-20s not eligible: %s\n", shown(g.group).c_str(), shown(g.reason).c_str());
    s += line;
    if (g.eligible && g.overlap) {  // docs/TUNING.md "Collectives beside compute"
      std::snprintf(line, sizeof line,
                    "#     measured beside compute (--overlap): scored by collective + compute per call; collective alone x%.3f\n",
                    g.collective_speedup);
      s += line;
    }
    // The trade-off: where the group loses beyond noise, at what weight and cost. Never a veto.
    constexpr std::size_t kShownCosts = 8;
    for (std::size_t i = 0; i < g.costs.size() && i < kShownCosts; ++i) {
      const GroupCost& c = g.costs[i];
      std::snprintf(line, sizeof line, "#     slower at %s %s: x%.3f, %.3g calls per step, costs %.2f us per step\n",
                    to_string(c.shape.collective).c_str(), format_size(c.size_bytes).c_str(), c.slowdown, c.weight, c.cost_us);
      s += line;
    }
    if (g.costs.size() > kShownCosts) s += "#     ... and " + std::to_string(g.costs.size() - kShownCosts) + " more slower size(s)\n";
  }
  if (const auto& w = outputs.withheld) {
    std::snprintf(line, sizeof line,
                  "# not deployed: group %s (x%.3f [%.3f, %.3f] in the collectives' weighted time): ", shown(w->group).c_str(), w->speedup,
                  w->low, w->high);
    s += line + w->why + "\n";
  }
  append_undecided(s, outputs.undecided);
}

}  // namespace

std::string format_tune_summary(const TuneOutputs& outputs, bool verbose) {
  std::string s;
  char line[512];
  s += "# process-level group: " + shown(outputs.group);
  if (!outputs.profile.env.empty()) s += " (" + env_text(outputs.profile.env) + ")";
  s += "\n";
  if (!outputs.weights_note.empty()) s += "# " + outputs.weights_note + "\n";
  append_group_scores(s, outputs);
  if (outputs.confirmed_sizes + outputs.unconfirmed_sizes > 0) {
    std::snprintf(line, sizeof line, "# confirmation round: %d of %d rule size(s) read faster against NCCL's defaults; %s\n",
                  outputs.confirmed_sizes, outputs.confirmed_sizes + outputs.unconfirmed_sizes,
                  outputs.unconfirmed_sizes > 0 ? "NCCL's default kept at the others (-v names them)" : "all kept");
    s += line;
  }
  if (outputs.profile.rules.empty()) s += "# no rules: NCCL's own choices were best (or not beaten beyond noise) at every size\n";
  else {
    std::snprintf(line, sizeof line, "%-14s %6s %6s %12s %12s %-16s %8s %8s\n", "collective", "nranks", "nnodes", "min", "max",
                  "algo/proto", "channels", "speedup");
    s += line;
  }
  for (const ProfileRule& r : outputs.profile.rules) {
    const std::string max = r.max_bytes == UINT64_MAX ? "inf" : format_size(r.max_bytes);
    const std::string ap = algo_proto_name(r.algorithm, r.protocol);
    std::snprintf(line, sizeof line, "%-14s %6d %6d %12s %12s %-16s %8s %7.3fx\n",
                  std::string(profile_collective_name(r.collective)).c_str(), r.nranks, r.nnodes, format_size(r.min_bytes).c_str(),
                  max.c_str(), ap.c_str(), r.channels ? std::to_string(r.channels).c_str() : "nccl", r.expected_speedup);
    s += line;
  }
  if (verbose)
    for (const SizeDecision& d : outputs.decisions) {
      std::snprintf(line, sizeof line, "#   %-13s %10s %-28s %s\n", to_string(d.shape.collective).c_str(),
                    format_size(d.size_bytes).c_str(), describe(d.choice).c_str(), shown(d.why).c_str());
      s += line;
    }
  for (const JobTime& t : outputs.job_times) s += "# " + format_job_time(t, outputs.job_per_step) + "\n";
  if (outputs.job_step_us > 0) {
    const double share = outputs.step_saving_us / outputs.job_step_us;
    if (outputs.kept_defaults)
      std::snprintf(line, sizeof line,
                    "# no change: the best profile measured saves %.3f ms of the job's %.3f ms step (%.1f %%), less than "
                    "--min-gain of the step, which the job could not show; NCCL's defaults kept\n",
                    outputs.step_saving_us / 1e3, outputs.job_step_us / 1e3, 100.0 * share);
    else
      std::snprintf(line, sizeof line, "# the job's step: %.3f ms (%s); the profile saves %.3f ms of it (%.1f %%)\n",
                    outputs.job_step_us / 1e3,
                    outputs.step_from_collectives ? "its collectives' time under NCCL's defaults: the capture's issue cadence was shorter"
                                                  : "from its capture",
                    outputs.step_saving_us / 1e3, 100.0 * share);
    s += line;
  }
  for (const std::string& n : outputs.notes) s += "# note: " + shown(n) + "\n";
  return s;
}

}  // namespace cctune::tuner
