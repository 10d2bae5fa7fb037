#pragma once
// The tuning profile (schema "cctune.profile/1"): per (collective, nranks, nnodes, byte range)
// the NCCL algorithm, protocol and channel count to use. `cctune tune` writes it, the tuner
// plugin reads it. docs/TUNING.md "Profile format" is the contract; keep the two in step.
//
// Parsing never throws and never aborts: the tuner plugin runs inside users' training jobs,
// so a bad file must become an error string, not a crash. No CUDA or NCCL header here.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/collective.hpp"
#include "tuner/profile/algo_proto.hpp"

namespace cctune::tuner {

inline constexpr std::string_view kProfileSchema = "cctune.profile/1";
// NCCL's MAXCHANNELS; a rule asking for more is malformed.
inline constexpr int kMaxRuleChannels = 64;
// Guards against pathological files; real profiles hold tens to hundreds of rules.
inline constexpr std::size_t kMaxProfileRules = 100000;
inline constexpr std::size_t kMaxProfileFileBytes = 64u << 20;

// The algorithms NCCL's cost table offered for one (collective, nranks, nnodes) while the
// profile's measurements were made: its rules competed against these and no others.
struct OfferedAlgorithms {
  Collective collective = Collective::AllReduce;
  int nranks = 0;
  int nnodes = 0;
  AlgorithmSet algorithms = 0;
  bool operator==(const OfferedAlgorithms&) const = default;
};

// What a profile assumes was offered where its provenance records nothing (profiles written
// before cctune recorded it): those sweeps always ran with NCCL_NVLS_ENABLE=0.
inline constexpr AlgorithmSet kUnrecordedOffer =
    kEveryAlgorithm & ~(algorithm_bit(Algorithm::Nvls) | algorithm_bit(Algorithm::NvlsTree));

struct ProfileProvenance {
  std::string nccl_version;          // "2.28.3": the library the measurements were made with
  std::string topology_fingerprint;  // hex; empty when unknown
  std::string space;
  std::string created;  // ISO 8601
  std::string cctune_version;
  std::string results;  // path of the results the profile was derived from
  std::vector<OfferedAlgorithms> offered;           // empty: not recorded
  std::map<std::string, std::string> baseline_env;  // NCCL_* the measuring workers ran with
  // "shared-gpu": made from test-mode results by `tune --functional-check`, so its rules are a
  // functional check of the chain, not advice; empty for a real profile.
  std::string test_mode;
  bool operator==(const ProfileProvenance&) const = default;
};

// Byte bounds are inclusive and in NCCL's nBytes units: max(send, recv) bytes per rank,
// which is nccl-tests' "size" column (docs/TUNING.md).
struct ProfileRule {
  Collective collective = Collective::AllReduce;  // only the five NCCL collectives
  int nranks = 0;
  int nnodes = 0;
  std::uint64_t min_bytes = 0;
  std::uint64_t max_bytes = 0;
  Algorithm algorithm = Algorithm::Ring;
  Protocol protocol = Protocol::Simple;
  int channels = 0;  // 0: NCCL's own channel count
  double expected_speedup = 1.0;
  // What the sweep measured with this rule's choice at the sizes it covers: (size in nBytes,
  // busbw in GB/s), ascending by size. Empty in profiles written before cctune recorded it.
  // The profiler half's production watch compares a job's live busbw with it.
  std::vector<std::pair<std::uint64_t, double>> measured_busbw_GBps{};  // an initializer: older aggregate inits stay warning-free
  bool operator==(const ProfileRule&) const = default;
};

// What the sweep measured for NCCL's default (the chosen group's "auto" point) at one size,
// whether or not a rule changes it: the production watch's reference for every shape measured
// (issue 35). Optional in cctune.profile/1 ("measured_baseline"); older profiles have none.
struct MeasuredBaseline {
  Collective collective = Collective::AllReduce;  // any of the nine (the watch sees them all)
  int nranks = 0;
  int nnodes = 0;
  std::uint64_t size_bytes = 0;
  double time_us = 0;     // median per call
  double busbw_GBps = 0;  // from time_us
  bool operator==(const MeasuredBaseline&) const = default;
};
inline constexpr std::size_t kMaxMeasuredBaseline = 100000;

struct Profile {
  ProfileProvenance provenance;
  std::map<std::string, std::string> env;  // process-level NCCL_* settings (nccl.env)
  std::vector<ProfileRule> rules;
  std::vector<MeasuredBaseline> measured_baseline{};
  bool operator==(const Profile&) const = default;
};

// Whether two rules steer NCCL alike: the same calls (collective, nranks, nnodes, byte range)
// get the same choice (algorithm, protocol, channels). What was measured (expected_speedup,
// measured_busbw_GBps) is no part of it, so operator== is too strict for this.
bool same_choice(const ProfileRule& a, const ProfileRule& b);
// Whether two profiles steer NCCL alike: the same env and rules of the same choices, in order
// (tune --job races no candidate twice). Provenance and measurements do not count.
bool same_effect(const Profile& a, const Profile& b);

// Either a profile or why there is none.
struct ProfileResult {
  std::optional<Profile> profile;
  std::string error;  // set exactly when !profile
};

ProfileResult parse_profile(std::string_view json_text) noexcept;
// Reads and parses `path`; the error names the path.
ProfileResult load_profile(const std::string& path) noexcept;
// The first problem of a profile built in memory (what parse_profile checks after reading
// the fields), or empty when it is valid. The exporter calls it before writing.
std::string validate_profile(const Profile& profile);
// Pretty-printed JSON that parse_profile reads back to an equal Profile.
std::string format_profile(const Profile& profile);

// The collectives a profile may name: those the tuner can steer (core/collective_traits.hpp's
// is_tunable: allreduce, allgather, reducescatter, broadcast, reduce), by their table names.
std::optional<Collective> parse_profile_collective(std::string_view s) noexcept;
std::string_view profile_collective_name(Collective c) noexcept;

// NCCL version codes as ncclGetVersion returns them (2.28.3 -> 22803); nullopt when the
// text is not "MAJOR.MINOR.PATCH".
std::optional<int> nccl_version_code(std::string_view version) noexcept;
std::string nccl_version_string(int code);

}  // namespace cctune::tuner
