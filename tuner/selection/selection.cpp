#include "tuner/selection/selection.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <optional>
#include <set>
#include <tuple>

#include "core/collective_traits.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "tuner/selection/do_no_harm.hpp"
#include "tuner/selection/provenance.hpp"
#include "tuner/selection/ranges.hpp"

namespace cctune::tuner {
namespace {

using SizeMap = std::map<std::uint64_t, std::vector<Candidate>>;

struct RuleConfig {
  Algorithm algorithm = Algorithm::Ring;
  Protocol protocol = Protocol::Simple;
  int channels = 0;
  auto operator<=>(const RuleConfig&) const = default;
};

// What a rule would force to reproduce `c`; nullopt when the profile cannot say it (an
// "auto" half with no observation of what NCCL ran).
std::optional<RuleConfig> rule_config(const Candidate& c) {
  const std::optional<Algorithm> a = c.config.algo ? c.config.algo : c.chosen_algo;
  const std::optional<Protocol> p = c.config.proto ? c.config.proto : c.chosen_proto;
  if (!a || !p || c.config.channels < 0 || c.config.channels > kMaxRuleChannels) return std::nullopt;
  return RuleConfig{*a, *p, c.config.channels};
}

ChoiceLabel label_of(const Candidate& c, const CandidateSet& set) {
  return {set.groups[c.group].name, c.config, c.chosen_algo, c.chosen_proto, c.chosen_channels};
}

std::string fmt_us(double us) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f us", us);
  return buf;
}

std::string percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", fraction * 100.0);
  return buf;
}

// The decision of group `g` at one size, or nullopt when the group has no "auto" point there.
std::optional<SizeDecision> decide(const CandidateSet& set, std::size_t g, const ShapeKey& shape, std::uint64_t size,
                                   const std::vector<Candidate>& all, const TuneOptions& options,
                                   std::size_t& unexpressible) {
  const Candidate* base = nullptr;
  for (const Candidate& c : all)
    if (c.group == g && c.is_auto()) base = &c;
  if (!base) return std::nullopt;
  const Candidate* best = nullptr;
  const Candidate* fastest = nullptr;  // fastest of the group, significant or not
  for (const Candidate& c : all) {
    if (c.group != g || &c == base) continue;
    if (!fastest || c.timing.time_us < fastest->timing.time_us) fastest = &c;
    if (!significantly_faster(c.timing, base->timing, options.min_gain, options.min_gain_us)) continue;
    if (!rule_config(c)) {
      ++unexpressible;
      continue;
    }
    if (!best || c.timing.time_us < best->timing.time_us) best = &c;
  }
  SizeDecision d;
  d.shape = shape;
  d.size_bytes = size;
  d.dtype = base->dtype;
  d.baseline = label_of(*base, set);
  d.baseline_timing = base->timing;
  const Candidate& chosen = best ? *best : *base;
  d.choice = label_of(chosen, set);
  d.choice_timing = chosen.timing;
  d.switched = best != nullptr;
  d.speedup = base->timing.time_us / chosen.timing.time_us;
  const double noise = base->timing.halfwidth_us / base->timing.time_us;
  if (best) {
    d.why = percent(1.0 - best->timing.time_us / base->timing.time_us) + " faster than NCCL's default, clearing the minimum with both intervals (default +/-" +
            percent(noise) + ", this +/-" + percent(best->timing.halfwidth_us / best->timing.time_us) + ")";
  } else if (fastest && fastest->timing.time_us < base->timing.time_us) {
    d.why = "NCCL's default kept: the fastest alternative (" + describe(label_of(*fastest, set)) + ") is " +
            percent(1.0 - fastest->timing.time_us / base->timing.time_us) + " faster, within noise: under the " +
            percent(options.min_gain) + " / " + fmt_us(options.min_gain_us) + " minimum at the ends of both intervals";
  } else {
    d.why = fastest ? "NCCL's default is the fastest measured" : "only NCCL's default was measured";
  }
  return d;
}

// `tune --job`'s forced group.
std::size_t group_named(const CandidateSet& set, const std::string& name) {
  for (std::size_t i = 0; i < set.groups.size(); ++i)
    if (set.groups[i].name == name) return i;
  throw UsageError("the results hold no group \"" + name + "\"", "name a group the sweep measured");
}

std::size_t reference_group(const CandidateSet& set) {
  return reference_index(set.groups, [](const ProcessGroup& g) { return g.name; });
}

using Decisions = std::map<std::pair<ShapeKey, std::uint64_t>, SizeDecision>;

std::vector<ProfileRule> rules_from(const Decisions& decisions, std::vector<int>& observed) {
  std::vector<ProfileRule> rules;
  std::map<ShapeKey, std::vector<const SizeDecision*>> by_shape;
  for (const auto& [key, d] : decisions) by_shape[key.first].push_back(&d);
  for (const auto& [shape, list] : by_shape) {
    if (!is_tunable(shape.collective)) continue;  // NCCL's p2p path: no rule can steer it
    std::vector<std::uint64_t> sizes;
    std::vector<int> labels;
    std::vector<RuleConfig> configs;
    for (const SizeDecision* d : list) {
      sizes.push_back(d->size_bytes);
      int label = -1;
      if (d->switched) {
        Candidate c{0, d->choice.config, d->choice.chosen_algo, d->choice.chosen_proto, d->choice.chosen_channels, d->choice_timing};
        const RuleConfig rc = *rule_config(c);
        auto it = std::find(configs.begin(), configs.end(), rc);
        label = static_cast<int>(it - configs.begin());
        if (it == configs.end()) configs.push_back(rc);
      }
      labels.push_back(label);
    }
    for (LabelRange r : merge_ranges(sizes, labels, false)) {
      if (r.label < 0) continue;
      // A rule covers the sizes measured to win, from its first to its last: never sizes
      // below, above, or between it and another choice, which nobody measured (a midpoint guess
      // lost 3.6% at 32 MiB AllGather on 2xH200; a 24 MiB win stretched to 0 B read "same").
      r.min_bytes = sizes[r.first];
      r.max_bytes = sizes[r.last];
      double log_sum = 0;
      int channels_seen = 0;
      for (std::size_t i = r.first; i <= r.last; ++i) {
        log_sum += std::log(list[i]->speedup);
        channels_seen = std::max(channels_seen, list[i]->choice.chosen_channels);
      }
      observed.push_back(channels_seen);
      const double speedup = std::exp(log_sum / static_cast<double>(r.last - r.first + 1));
      const RuleConfig& rc = configs[static_cast<std::size_t>(r.label)];
      rules.push_back({shape.collective, shape.nranks, shape.nnodes, r.min_bytes, r.max_bytes, rc.algorithm, rc.protocol,
                       rc.channels, std::round(speedup * 1000.0) / 1000.0, {}});
      // The chosen configuration's measured busbw at each size: the production watch's reference.
      for (std::size_t i = r.first; i <= r.last; ++i)
        if (list[i]->choice_timing.time_us > 0)
          rules.back().measured_busbw_GBps.emplace_back(
              list[i]->size_bytes, static_cast<double>(list[i]->size_bytes) / (list[i]->choice_timing.time_us * 1e3) *
                                       bus_factor(shape.collective, shape.nranks));
    }
  }
  return rules;
}

// Group `g` against the reference group's NCCL defaults at every size the weights count: its
// weighted total time with an interval (group_score.hpp), and the sizes where it loses. A size
// the reference measured and the group did not leaves it unscored: its cost there is unknown.
GroupScore score_group(const CandidateSet& set, std::size_t g, std::size_t ref, const std::vector<Decisions>& per_group,
                       const TuneOptions& options, const std::map<SizeKey, double>& weights) {
  const Decisions& ref_decisions = per_group[ref];
  GroupScore score{set.groups[g].name, set.groups[g].env, true, "", 0, weights.size(), 0, 0, 0, false, 0, 0, {}, false, 0, {}};
  double log_sum = 0;
  std::vector<GroupTerm> terms;
  for (const auto& [key, weight] : weights) {
    const SizeDecision& ref_d = ref_decisions.at(key);
    auto it = per_group[g].find(key);
    if (it == per_group[g].end()) {
      score.eligible = false;
      score.reason = "not measured at " + std::to_string(key.second) + " bytes (" + to_string(key.first.collective) + ")";
      return score;
    }
    // Another group's environment applies to every size, so it is judged by what it runs at
    // each, its best rule included: its losses count at their weight, and no more.
    log_sum += std::log(ref_d.baseline_timing.time_us / it->second.choice_timing.time_us);
    terms.push_back({key.first, key.second, weight, ref_d.baseline_timing, it->second.choice_timing});
  }
  const WeightedTotal total = total_of(terms, options.min_gain, options.min_gain_us);
  score.geomean_speedup = std::exp(log_sum / static_cast<double>(std::max<std::size_t>(1, score.sizes)));
  score.job_speedup = total.speedup;
  score.speedup_low = total.speedup_low;
  score.speedup_high = total.speedup_high;
  score.job_beyond_noise = total.speedup_low >= 1.0 + options.min_gain;
  score.default_us = total.default_us;
  score.group_us = total.group_us;
  score.costs = total.costs;
  score.overlap = measured_beside_compute(terms);
  score.collective_speedup = collective_speedup_of(terms);
  score.terms = std::move(terms);
  return score;
}

// The job's time per step under the reference group's NCCL defaults and under the profile
// (the chosen group's decisions `kept`).
std::vector<JobTime> job_times_of(const Decisions& kept, const Decisions& ref_decisions, const MappedWeights& job) {
  std::vector<JobTerm> terms;
  for (const auto& [key, cps] : job.calls_per_step) {
    const SizeDecision& here = kept.at(key);
    // Collectives no rule steers run NCCL's default of the chosen group.
    const Timing profile_time = is_tunable(key.first.collective) ? here.choice_timing : here.baseline_timing;
    terms.push_back({key.first, cps, ref_decisions.at(key).baseline_timing, profile_time});
  }
  return sum_job_time(terms);
}

// The job's weights on the sizes measured (notes on what moved or was not measured).
MappedWeights mapped_weights(const std::vector<JobPoint>& weights, const Decisions& ref_decisions, std::vector<std::string>& notes) {
  std::set<SizeKey> measured;
  for (const auto& [key, d] : ref_decisions) measured.insert(key);
  MappedWeights mapped = map_job_weights(weights, measured);
  notes.insert(notes.end(), mapped.notes.begin(), mapped.notes.end());
  if (mapped.calls_per_step.empty())
    throw UsageError("none of the job's (collective, ranks, nodes) shapes was measured in these results",
                     "sweep the job's shapes with `cctune sweep --workload FILE` on an allocation of the job's ranks and nodes");
  return mapped;
}

// By the job's own step (TuneOptions::job_step_us): true when a change's saving per step,
// summed over the job's collectives, is under min_gain of the step, which the job could not
// show. tune --job's candidates (force_group) are judged on the job itself instead.
bool step_cannot_show(TuneOutputs& out, bool changes, const TuneOptions& options) {
  if (!(options.job_step_us > 0) || !options.job_per_step || !options.force_group.empty()) return false;
  double collectives_us = 0;
  for (const JobTime& t : out.job_times) out.step_saving_us += t.default_us - t.profile_us, collectives_us += t.default_us;
  // A step is at least its collectives' time under NCCL's defaults: a capture's issue cadence
  // shorter than that is the host running ahead of the GPU (DDP over sockets on 4xH200: 9.0 ms
  // between calls, 21.4 ms of allreduce per step), not the step.
  out.job_step_us = std::max(options.job_step_us, collectives_us);
  out.step_from_collectives = collectives_us > options.job_step_us;
  return changes && out.step_saving_us < options.min_gain * out.job_step_us;
}

Decisions kept_of(const Decisions& decisions, const std::function<bool(const SizeKey&)>& counts) {
  Decisions kept;
  for (const auto& [key, d] : decisions)
    if (counts(key)) kept.emplace(key, d);
  return kept;
}

// The same sizes with NCCL's default kept at each: the profile that changes nothing.
Decisions defaults_of(Decisions decisions) {
  for (auto& [key, d] : decisions) {
    d.choice = d.baseline;
    d.choice_timing = d.baseline_timing;
    d.switched = false;
    d.speedup = 1.0;
    d.why = "NCCL's default kept: the profile's saving per step is under the tolerance of the job's step time";
  }
  return decisions;
}

// The confirmation round's verdicts on the proposed rules: where it did not read the profile
// faster, NCCL's default stays (the sweep's win did not survive an interleaved re-measurement).
void apply_confirmations(Decisions& kept, const std::vector<RuleConfirmation>& confirmations, TuneOutputs& out) {
  for (const RuleConfirmation& c : confirmations) {
    auto it = kept.find({c.shape, c.size_bytes});
    if (it == kept.end() || !it->second.switched) continue;
    if (c.faster) {
      ++out.confirmed_sizes;
      continue;
    }
    ++out.unconfirmed_sizes;
    SizeDecision& d = it->second;
    char buf[160];
    if (c.speedup > 0)
      std::snprintf(buf, sizeof buf, "NCCL's default kept: the confirmation round read the rule x%.3f [%.3f, %.3f], not faster beyond the tolerance",
                    c.speedup, c.ci_low, c.ci_high);
    else
      std::snprintf(buf, sizeof buf, "NCCL's default kept: the confirmation round could not measure the rule (a group failed)");
    d.choice = d.baseline;
    d.choice_timing = d.baseline_timing;
    d.switched = false;
    d.speedup = 1.0;
    d.why = buf;
  }
}

// NCCL's default at every size measured, changed by a rule or not: the production watch's
// reference where the profile keeps NCCL's choice (issue 35).
std::vector<MeasuredBaseline> measured_baseline_of(const Decisions& decisions) {
  std::vector<MeasuredBaseline> out;
  for (const auto& [key, d] : decisions)
    if (d.baseline_timing.time_us > 0)
      out.push_back({key.first.collective, key.first.nranks, key.first.nnodes, key.second, d.baseline_timing.time_us,
                     static_cast<double>(key.second) / (d.baseline_timing.time_us * 1e3) *
                         bus_factor(key.first.collective, key.first.nranks)});
  return out;
}

}  // namespace

bool has_nccl_measurements(const Results& results) {
  for (const RunResult& run : results.runs)
    if (run.backend == "nccl")
      for (const PointResult& p : run.points)
        if (p.status == PointStatus::Ok) return true;
  return false;
}

std::string describe(const ChoiceLabel& label) {
  const PointConfig& c = label.config;
  std::string s;
  if (!c.algo && !c.proto) {
    s = "auto";
    if (label.chosen_algo) s += " (" + algo_proto_name(label.chosen_algo, label.chosen_proto) + ")";
  } else {
    s = algo_proto_name(c.algo, c.proto);
  }
  if (c.channels > 0) s += " ch=" + std::to_string(c.channels);
  return s;
}

TuneOutputs tune_results(const Results& results, const TuneOptions& options) {
  TuneOutputs out;
  Profile& profile = out.profile;
  profile.provenance = {nccl_version_of(results), options.topology_fingerprint, options.space, options.created,
                        options.cctune_version, options.results_path, {}, {}, {}};
  CandidateSet set = collect_candidates(results, job_dtypes(options.job_weights));
  out.notes = set.notes;
  if (set.groups.empty() || set.by_shape.empty())
    throw UsageError("the results hold no successful measurement to tune from", "check the sweep's results.json for failed groups");

  std::size_t unexpressible = 0;
  std::vector<Decisions> per_group(set.groups.size());
  for (const auto& [shape, sizes] : set.by_shape)
    for (const auto& [size, all] : sizes)
      for (std::size_t g = 0; g < set.groups.size(); ++g)
        if (auto d = decide(set, g, shape, size, all, options, unexpressible)) per_group[g].emplace(std::pair(shape, size), *d);

  const std::size_t ref = reference_group(set);
  const Decisions& ref_decisions = per_group[ref];
  if (ref_decisions.empty())
    throw UsageError("group \"" + set.groups[ref].name + "\" has no NCCL default (\"auto\") point to compare with",
                     "sweep with the \"auto\" algorithm/protocol in the space (every built-in space has it)");

  // A job's weights: each lands on a measured size; only those sizes count from here on.
  const bool weighted = !options.job_weights.empty();
  const MappedWeights mapped = weighted ? mapped_weights(options.job_weights, ref_decisions, out.notes) : MappedWeights{};
  const auto counts = [&](const SizeKey& key) { return !weighted || mapped.calls_per_step.count(key) > 0; };

  // What the groups' totals weigh: the job's calls per step, else one call per measured size.
  std::map<SizeKey, double> weights = mapped.calls_per_step;
  if (!weighted)
    for (const auto& [key, d] : ref_decisions) weights.emplace(key, 1.0);
  out.weights_note = weighted ? std::string("groups weighed by the job's calls per ") + (options.job_per_step ? "step" : "capture")
                              : "no workload: groups weighed by one call of every measured size alike (time per 'step' = one call of each)";
  std::optional<std::size_t> best;
  for (std::size_t g = 0; g < set.groups.size(); ++g) {
    GroupScore score = score_group(set, g, ref, per_group, options, weights);
    if (score.eligible && (!best || score.job_speedup > out.groups[*best].job_speedup)) best = g;
    out.groups.push_back(score);
  }
  // Another group's environment must gain in the weighted total beyond noise: the lower end of
  // its interval clears the tolerance.
  std::size_t chosen = options.force_group.empty() ? (best && *best != ref && out.groups[*best].job_beyond_noise ? *best : ref)
                                                    : group_named(set, options.force_group);
  if (options.force_group.empty() && chosen != ref && (out.withheld = withheld(out.groups[chosen], weighted, options.job_step_us)))
    chosen = ref;                                       // do no harm: shown on the job only (do_no_harm.hpp)
  Decisions kept = kept_of(per_group[chosen], counts);  // job-weighted: a rule only at a size the job issues
  apply_confirmations(kept, options.confirmations, out);
  if (weighted) out.job_times = job_times_of(kept, ref_decisions, mapped);
  const bool changes = chosen != ref || std::any_of(kept.begin(), kept.end(), [](const auto& k) { return k.second.switched; });
  if (weighted && step_cannot_show(out, changes, options)) {
    out.kept_defaults = true;
    chosen = ref;
    kept = defaults_of(kept_of(ref_decisions, counts));
    out.job_times = job_times_of(kept, ref_decisions, mapped);
  }
  out.group = set.groups[chosen].name;
  for (std::string& note : overlap_notes(out.groups, out.group, options.min_gain)) out.notes.push_back(std::move(note));
  out.undecided = undecided_race(results, out.groups, out.group, out.reference = set.groups[ref].name, options.min_gain);
  profile.env = set.groups[chosen].env;
  profile.provenance.offered = offered_algorithms(results, out.group);
  profile.provenance.baseline_env = baseline_environment(results, out.group);
  for (const auto& [key, d] : kept) out.decisions.push_back(d);
  profile.rules = rules_from(kept, out.rule_observed_channels);
  profile.measured_baseline = measured_baseline_of(per_group[chosen]);
  if (weighted) {
    out.job_weighted = true;
    out.job_per_step = options.job_per_step;
  }
  if (unexpressible)
    out.notes.push_back(std::to_string(unexpressible) +
                        " faster point(s) ran NCCL's own algorithm/protocol without the plugin observing which; a rule "
                        "cannot name them");

  if (std::string error = validate_profile(profile); !error.empty())
    throw RuntimeFailure("the profile derived from the results is invalid: " + error,
                         "report this with the results file; it is a cctune bug");
  return out;
}

}  // namespace cctune::tuner
