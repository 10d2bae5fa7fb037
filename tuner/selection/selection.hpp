#pragma once
// `cctune tune`'s decisions: per (collective, nranks, nnodes, size range) the best measured
// configuration, leaving NCCL's default ("auto") only when the gain is beyond measured noise;
// one process-level group for the whole profile (its env is set once per process).
// Pure: results in, a profile and the reasons out. docs/TUNING.md "Selection".
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/results.hpp"
#include "tuner/profile/profile.hpp"
#include "tuner/selection/candidates.hpp"
#include "tuner/selection/do_no_harm.hpp"
#include "tuner/selection/group_score.hpp"
#include "tuner/selection/job_time.hpp"
#include "tuner/selection/undecided.hpp"

namespace cctune::tuner {

// What the confirmation round (`cctune sweep`'s, docs/TUNING.md "Confirmation round") read at one
// size a proposed rule covered: the profile against NCCL's defaults in interleaved rounds.
struct RuleConfirmation {
  ShapeKey shape;
  std::uint64_t size_bytes = 0;
  double speedup = 1, ci_low = 1, ci_high = 1;  // defaults' time / the profile's, with its interval
  bool faster = false;                           // the whole interval above 1 + tolerance
};

struct TuneOptions {
  double min_gain = 0.02;     // a switch must save at least this fraction of the time
  // ...and at least this much absolute time: on 2xH200, latency-bound points (~9 us) moved by
  // 0.3-0.7 us between the sweep and verify's fresh processes, so smaller wins were noise.
  double min_gain_us = 0.75;
  // Kept for `tune --no-extend`, which now changes nothing: a rule covers only the sizes
  // measured (from its first to its last measured win), never sizes below or above them
  // (issue 35: an FSDP2 job's one 24 MiB AllGather win became a rule for 0 B - 24 MiB).
  bool extend_edges = false;
  std::string space;          // provenance: the search space's name
  // provenance: the cluster's one node-group fingerprint (topo::single_group_fingerprint of the
  // results' topology, which this pure module cannot read); empty: heterogeneous or unknown
  std::string topology_fingerprint;
  std::string results_path;   // provenance: where the results came from
  std::string created;        // provenance: ISO 8601 time; empty leaves it empty
  std::string cctune_version;
  // A job's calls per step (`cctune sweep --workload`, `tune --workload`): when given, the group
  // is chosen by the job's collective time and rules are written at the job's sizes only.
  std::vector<JobPoint> job_weights;
  bool job_per_step = true;  // false: the weights count calls per capture (steps unknown)
  // The job's step time from its capture (0: unknown). When known, a profile must save at least
  // min_gain of it per step, or NCCL's defaults are kept: a gain in collective time that the
  // job's step cannot show is no reason to change its environment (issue 35: on NVLink a 5 %
  // collective gain was 0.3 % of the step, and verify --job read "same").
  double job_step_us = 0;
  // `tune --job`'s candidates: this group's environment whatever the scores say (its rules as
  // the group's own decisions make them); empty: the group the scores choose.
  std::string force_group;
  // The confirmation round's readings: a size whose rule did not read faster keeps NCCL's
  // default, so the profile written is one that survives `verify` (issue 35). Empty: no round.
  std::vector<RuleConfirmation> confirmations;
};

// What one configuration is, as a user reads it.
struct ChoiceLabel {
  std::string group;
  PointConfig config;
  std::optional<Algorithm> chosen_algo;  // what NCCL ran (ring), when the plugin saw it
  std::optional<Protocol> chosen_proto;
  int chosen_channels = 0;  // channels that ran; 0 unknown
};

struct SizeDecision {
  ShapeKey shape;
  std::uint64_t size_bytes = 0;
  DType dtype = DType::Float32;  // the data type the decision was measured in
  ChoiceLabel baseline;  // NCCL's default in the chosen group
  Timing baseline_timing;
  ChoiceLabel choice;
  Timing choice_timing;
  bool switched = false;  // choice differs from the baseline
  double speedup = 1.0;   // baseline time / choice time
  std::string why;        // one sentence
};

struct TuneOutputs {
  Profile profile;       // validated (tuner::validate_profile)
  std::string group;     // the process-level group whose env the profile carries
  std::string reference;  // the group NCCL's defaults are measured in (the groups' scores are against it)
  std::vector<GroupScore> groups;
  std::vector<SizeDecision> decisions;  // of the chosen group, by shape then size
  // Per profile rule: the channel count that ran at its sizes (largest seen; 0 unknown).
  // NCCL's example tuner plugin needs an explicit count (see tuner_conf.hpp).
  std::vector<int> rule_observed_channels;
  std::vector<std::string> notes;       // what was left out or could not be expressed
  bool job_weighted = false;            // options.job_weights decided
  std::string weights_note;             // what the groups' totals weigh, in words
  bool job_per_step = true;
  std::vector<JobTime> job_times;       // per (collective, nranks, nnodes), job-weighted only
  // The job's step time and what the measured winner would have saved of it per step, when the
  // step was timed; kept_defaults: that saving was under min_gain of the step, so the profile
  // is NCCL's defaults (group and rules).
  double job_step_us = 0;
  double step_saving_us = 0;
  // The capture's step was shorter than the collectives' time per step under NCCL's defaults,
  // which job_step_us then is (the host issued ahead of the GPU).
  bool step_from_collectives = false;
  bool kept_defaults = false;
  // Sizes of the proposed rules the confirmation round read faster, and those it did not
  // (NCCL's default kept there); both 0 without a round.
  int confirmed_sizes = 0, unconfirmed_sizes = 0;
  // The group the scores chose and tune did not deploy (do_no_harm.hpp): NCCL's defaults keep
  // that role; `tune --job` races it on the job. Empty when the chosen group is deployed.
  std::optional<WithheldGroup> withheld;
  // The groups the noise left undecided against NCCL's defaults (undecided.hpp).
  UndecidedRace undecided;
};

// True when the results hold an NCCL run with at least one ok point: what the sweep checks
// before tuning at its end (MPI-only sweeps have nothing to tune).
bool has_nccl_measurements(const Results& results);

// Throws UsageError when the results hold nothing to tune from (no NCCL version, no
// NCCL "auto" point to compare with).
TuneOutputs tune_results(const Results& results, const TuneOptions& options);

// "ring/ll128 ch=32", "auto (ring/simple)", with the group when it is not the reference.
std::string describe(const ChoiceLabel& label);

}  // namespace cctune::tuner
