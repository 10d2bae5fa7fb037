#pragma once
// A job's collectives as NCCL saw them (schema cctune.workload/1, docs/WORKLOAD.md): per
// communicator, per call shape, how often it was called and what NCCL applied. Importers
// (nccl_log_import.hpp, flight_recorder_import.hpp) make one from a capture; workload_json.hpp
// reads and writes it. Pure: no NCCL, MPI or files here.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/algo_proto.hpp"
#include "core/collective.hpp"
#include "workload/step_cadence.hpp"

namespace cctune::workload {

inline constexpr const char* workload_schema = "cctune.workload/1";

// Point-to-point calls are not collectives, but a job's time goes into them too.
enum class CallKind { Collective, Send, Recv };
std::string to_string(CallKind k);  // "collective" | "send" | "recv"

struct CallShape {
  CallKind kind = CallKind::Collective;
  Collective collective = Collective::AllReduce;  // kind == Collective only
  DType dtype = DType::Float32;
  std::optional<ReduceOp> op;  // reductions only
  std::optional<int> root;     // rooted collectives only
  std::uint64_t count = 0;     // elements passed to NCCL by each rank
  std::uint64_t bytes = 0;     // NCCL's nBytes, the size its tuner is asked with (nbytes_of)
  auto operator<=>(const CallShape&) const = default;
};

// The largest nBytes of one call any importer or workload.json may hold (256 GiB per rank, as
// NCCL Inspector bounds its sizes): far from overflow when later multiplied by ranks or calls.
inline constexpr std::uint64_t max_call_bytes = std::uint64_t{1} << 38;
// The most ranks a communicator may have in a workload.
inline constexpr int max_workload_ranks = 1 << 24;

// NCCL's nBytes for a call (docs/TUNING.md "Which bytes"): type size × count, × nranks for the
// collectives that split their buffer over ranks (core/collective_traits.hpp); for the
// point-to-point collectives nccl-tests' size (the larger of what a rank sends and receives).
// nullopt when the product overflows or passes max_call_bytes: no real call is that large.
std::optional<std::uint64_t> nbytes_of(CallKind kind, Collective c, DType t, std::uint64_t count, int nranks);
// The shape's bytes as nbytes_of gives them for `nranks`; false for a shape no call can have.
bool bytes_match(const CallShape& s, int nranks);

// What NCCL applied to some of a shape's calls (its TUNING line, or the profiler's event).
struct Applied {
  std::optional<Algorithm> algo;
  std::optional<Protocol> proto;
  int channels = 0;  // 0: not known
  std::uint64_t calls = 0;
  bool operator==(const Applied&) const = default;
};

// Per-call durations where the capture has them (the flight recorder with timing on: host-
// observed, enqueue to completion; the profiler half: GPU time). Bounded: a summary only.
struct Durations {
  std::uint64_t samples = 0;
  double sum_us = 0, min_us = 0, max_us = 0;
  // The profiler half's: how the times were taken ("gpu" globaltimer or "host"; empty when the
  // capture does not say) and a histogram, bucket index -> calls (duration_bucket()).
  std::string clock;
  std::map<int, std::uint64_t> histogram;
  void add(double us);
  void merge(const Durations& other);
  bool operator==(const Durations&) const = default;
};

// Histogram buckets: four per octave. Bucket 0 holds durations under 1 us; bucket b >= 1 holds
// [2^((b-1)/4), 2^(b/4)) us; the last bucket also holds everything longer.
inline constexpr int duration_buckets = 96;
int duration_bucket(double us);
double duration_bucket_upper_us(int bucket);
// The q-quantile (0 < q < 1) of a histogram, as its bucket's upper bound; 0 when empty.
double histogram_quantile_us(const std::map<int, std::uint64_t>& histogram, double q);

struct CallStats {
  CallShape shape;
  // Collectives: issued by each rank of the communicator (every rank issues each one). Send
  // and receive: summed over the ranks captured, as ranks of a pipeline differ.
  std::uint64_t calls = 0;
  std::vector<Applied> applied;
  Durations durations;
  // Where the shape first appeared in its communicator's calls as a rank issued them (0: its
  // first call), the earliest over ranks; nullopt in workload files written before it was
  // recorded. Orders `cctune replay`'s step (docs/WORKLOAD.md "Replay").
  std::optional<std::uint64_t> first_call;
  bool operator==(const CallStats&) const = default;
};

// What a watch finding was compared with: the measured busbw of the profile's rule covering
// the shape, or NCCL's defaults as the sweep measured them (the profile's measured_baseline).
enum class WatchReference { Rule, Baseline };

// The profiler half's production watch: a shape whose live busbw on this rank fell well below
// what the profile's sweep measured on this cluster (core/outliers.hpp's rule).
struct WatchFinding {
  int rank = 0;
  Collective collective = Collective::AllReduce;
  std::uint64_t bytes = 0;  // NCCL's nBytes
  double live_busbw_GBps = 0;     // its faster calls' (the upper quartile of busbw over the calls so far)
  double profile_busbw_GBps = 0;  // the sweep's, at profile_bytes
  std::uint64_t profile_bytes = 0;
  double shortfall = 0;  // (profile - live) / profile
  // Files written before it was recorded carry no "reference": their findings were all Rule.
  WatchReference reference = WatchReference::Rule;
  bool operator==(const WatchFinding&) const = default;
};

// Calls one rank issued inside one outermost ncclGroupStart/End on this communicator, two or
// more of them, which NCCL plans and launches together (the profiler half's group API events,
// the COLL log's shared opCount, the flight recorder's coalesced entries). Members are in issue
// order; their calls are counted in `calls` too, as the shapes' own calls.
struct CallGroup {
  std::vector<CallShape> members;
  // Times the group was issued: by each rank (every rank issues it) when it holds collectives
  // only; summed over the ranks captured when it holds sends or receives, as CallStats counts.
  std::uint64_t calls = 0;
  bool has_p2p() const;
  auto operator<=>(const CallGroup&) const = default;
};

// More members than this in one group: the group is counted in groups_not_recorded instead.
inline constexpr std::size_t max_group_members = 256;

struct Communicator {
  std::string id;          // NCCL's commId / commHash (hex), or the framework's group name
  int nranks = 0;
  int nnodes = 0;          // 0: the capture does not say
  std::vector<int> ranks;  // the ranks whose captures went into it, ascending
  std::vector<CallStats> calls;  // sorted by shape
  // Calls the capture saw but could not keep (the profiler half's shape table was full).
  std::uint64_t calls_not_recorded = 0;
  std::vector<WatchFinding> watch{};  // profiler files with CCTUNE_PROFILE set
  std::vector<CallGroup> groups{};    // sorted by members; empty where the capture shows no groups
  // Groups the capture saw but could not keep (too many members, or the profiler's group table
  // full); their calls are still in `calls`.
  std::uint64_t groups_not_recorded = 0;
  // The steps its calls show (profiler files; step_cadence.hpp); merged, the rank that timed
  // the most steps.
  std::optional<StepCadence> cadence{};
  // Profiler files: why its calls show no step, where they show none (never with a cadence).
  std::optional<NoStep> no_step{};
  bool operator==(const Communicator&) const = default;
};

// What cctune's tuner half did in the processes captured (profiler files only: the same library,
// when NCCL loaded it as its tuner or CCTUNE_PROFILE was set). `cctune verify --job` reads from it
// whether a profile changed anything in the job (review R8). Merged: counts add up.
struct TunerReport {
  std::string profile;              // CCTUNE_PROFILE as the process saw it
  std::string problem;              // why the tuner did not use it (another NCCL, a bad file); empty otherwise
  std::uint64_t communicators = 0;  // tuner contexts NCCL created with cctune's tuner
  std::uint64_t with_rules = 0;     // of them, those a rule of the profile applies to
  std::uint64_t calls_steered = 0;  // calls a rule's choice was applied to
  bool operator==(const TunerReport&) const = default;
};
inline constexpr std::size_t max_tuner_text = 4096;  // profile and problem, in a file that may be forged
// `r` added into `into`: counts summed, the first problem kept.
void add_tuner_report(std::optional<TunerReport>& into, const TunerReport& r);

struct Workload {
  std::string format;                 // what it was imported from: "nccl-log", "flight-recorder"
  std::vector<std::string> sources;   // file names, as given
  std::optional<double> steps;        // training steps the capture covers, when known
  std::vector<Communicator> communicators;  // sorted by id
  std::optional<TunerReport> tuner{};       // profiler files of processes that loaded cctune's tuner
  bool operator==(const Workload&) const = default;
};

// Collects the calls one capture holds, keyed by (communicator, rank); finish() merges the
// ranks as merge() does. add_call and add_group refuse (UsageError) a shape whose bytes are not
// nbytes_of its count, a rank or root outside the communicator, a communicator of more than
// max_workload_ranks: importers check first and skip.
class WorkloadBuilder {
 public:
  // The stats of `shape` on communicator `comm_id` as seen by `rank`, its call count already
  // incremented.
  CallStats& add_call(const std::string& comm_id, int nranks, int nnodes, int rank, const CallShape& shape);
  // Calls `rank` made on `comm_id` that the capture saw but could not keep (sampled away).
  void add_not_recorded(const std::string& comm_id, int nranks, int nnodes, int rank, std::uint64_t calls);
  // One issue of `members` as one group by `rank` (their calls are added with add_call, as any
  // call's). Fewer than two members is no group; more than max_group_members is counted in
  // groups_not_recorded.
  void add_group(const std::string& comm_id, int nranks, int nnodes, int rank, const std::vector<CallShape>& members);
  Workload finish(std::string format, std::vector<std::string> sources) const;

 private:
  struct PerRank {
    Communicator comm;  // its calls stay empty until finish()
    std::map<CallShape, CallStats> calls;
    std::map<std::vector<CallShape>, std::uint64_t> groups;
    std::uint64_t calls_seen = 0;  // on this communicator and rank, for first_call
  };
  PerRank& per_rank(const std::string& comm_id, int nranks, int nnodes, int rank);
  std::map<std::pair<std::string, int>, PerRank> per_rank_;
  std::size_t shapes_ = 0;
};

// More distinct call shapes than this in one capture is refused (memory stays bounded by it).
inline constexpr std::size_t max_workload_shapes = 200000;

// The communicator with the most calls per rank among those with a step cadence (with `timed`,
// a cadence whose steps were timed): its steps are the job's. nullptr when none has one, and
// when it issued fewer than a tenth of the calls of the busiest communicator: a communicator of
// a few calls (a metrics or evaluation group's) does not stand for the job whose gradient
// communicator shows no step.
const Communicator* busiest_with_cadence(const Workload& w, bool timed);

// Why busiest_with_cadence finds no communicator, naming the busiest communicator and what its
// calls showed (its NoStep); nullopt where it finds one.
std::optional<NoStep> why_no_step(const Workload& w, bool timed);

// "allreduce float32 count 1048576": a call shape as messages name it.
std::string describe_shape(const CallShape& s);

// The steps a capture covers as the profiler half saw them: the cadence of the communicator
// with the most calls per rank (its steady steps, start-up left out); nullopt when no
// communicator has one. merge() uses it when no capture states its steps.
std::optional<double> steps_from_cadence(const Workload& w);

// Combines captures of several ranks of the same job: the ranks of one communicator must
// agree on every shape's call count (collectives are issued by every rank); a disagreement
// is a UsageError naming the communicator, shape and ranks. Ranks must not repeat. More than
// max_workload_shapes distinct shapes in the result is refused, as an import's.
Workload merge(const std::vector<Workload>& parts);

// A communicator id as cctune's importers write them: NCCL's hash ("0x" and 1 to 32 hex
// digits), a PyTorch process group ("pg" and its number), or a PyTorch group named by a hash
// ("pg" and 40 hex digits: split_group, new_group(use_local_synchronization=True)), or the log
// importer's "unmapped:<host>:<pid>/<pointer>[#<n>]" in letters, digits and ".-_:?/#".
bool valid_communicator_id(std::string_view id);

}  // namespace cctune::workload
