#pragma once
// The results of a sweep as plain values; results_json.hpp maps them to the
// cctune.results/2 schema (docs/RESULTS.md, configs/schema/results.schema.json).
#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/algo_proto.hpp"
#include "core/collective.hpp"
#include "core/collective_traits.hpp"
#include "core/result_section.hpp"
#include "core/statistics.hpp"
#include "core/stopping.hpp"

namespace cctune {

inline constexpr const char* results_schema = "cctune.results/2";
// Still read: the same layout without per-rank timings (points[].ranks, runs[].places).
inline constexpr const char* results_schema_v1 = "cctune.results/1";
// meta.settings.test_mode and runs[].test_mode of a sweep in the shared-GPU test mode
// (--test-shared-gpu): several NCCL ranks on one GPU over sockets, functional checks only.
inline constexpr const char* test_mode_shared_gpu = "shared-gpu";

// The algorithms NCCL's cost table offered (an entry >= 0 for some protocol). Known names
// are a set; a name this build does not know (a newer NCCL's, read from a results file) is
// kept verbatim in `unknown`, so reading and writing a file back never drops it.
struct AlgorithmOffer {
  AlgorithmSet known = 0;
  std::vector<std::string> unknown;  // first-seen order, no duplicates

  bool empty() const noexcept { return known == 0 && unknown.empty(); }
  AlgorithmOffer& operator|=(const AlgorithmOffer& other) {
    known |= other.known;
    for (const std::string& name : other.unknown)
      if (std::find(unknown.begin(), unknown.end(), name) == unknown.end()) unknown.push_back(name);
    return *this;
  }
  bool operator==(const AlgorithmOffer&) const = default;
};

enum class PointStatus { Ok, Skipped, Failed };
std::string to_string(PointStatus s);
PointStatus parse_point_status(std::string_view s);

// A config group's run (runs[].status) and the whole sweep (meta.status).
enum class RunStatus { Ok, Failed, Interrupted };
enum class MetaStatus { Running, Complete, Interrupted, Failed };
std::string to_string(RunStatus s);   // "ok" | "failed" | "interrupted"
std::string to_string(MetaStatus s);  // "running" | "complete" | "interrupted" | "failed"
// Throw UsageError naming the bad value and the valid ones.
RunStatus parse_run_status(std::string_view s);
MetaStatus parse_meta_status(std::string_view s);

// What was asked of the backend at one point: the choice NCCL is forced to, or NCCL's own
// (nullopt, "auto" in JSON; core/algo_proto.hpp says why not an enumerator).
struct PointConfig {
  std::optional<Algorithm> algo;
  std::optional<Protocol> proto;
  int channels = 0;  // 0: NCCL's choice
  bool graph = false;
  bool operator==(const PointConfig&) const = default;
  // NCCL chooses everything: no algorithm, protocol or channel count forced.
  bool is_default() const { return !algo && !proto && channels == 0; }
};

// Each rank's own view of one point, as columns indexed by rank (all of length nranks, or
// all empty: a point measured before cctune.results/2, or not ok). Arrival skew needs no
// synchronized clocks: per timed operation, the rank that arrived last waited least, so
// wait = own time - the fastest rank's time (docs/RESULTS.md, "Per-rank timings").
struct RankTimings {
  std::vector<double> batch_us;        // its own wall batch time per operation, median over batches
  std::vector<double> iter_median_us;  // median of its own per-operation times
  std::vector<double> wait_median_us;  // median over operations of its wait for the last arrival
  std::vector<double> last_pct;        // % of operations it arrived last (sums to 100 over ranks)
  std::size_t size() const { return batch_us.size(); }
  bool empty() const { return batch_us.empty(); }
  bool operator==(const RankTimings&) const = default;
};

// Where a rank ran, so it can be named: host, its index among the ranks of that host, and
// the GPU (CUDA device index, which is NVML's on a system with no CUDA_VISIBLE_DEVICES
// reordering) it measured on; -1 where it used none (MPI on host buffers).
struct RankPlace {
  std::string host;
  int local_rank = 0;
  int gpu = -1;
  bool operator==(const RankPlace&) const = default;
};

// `--overlap` (docs/TUNING.md "Collectives beside compute"): the point ran beside a compute
// load on every GPU. compute_slowdown: the compute's time under load / alone (median over the
// rounds, slowest rank per round); compute_us: what the collective's presence added to the
// compute during one call, batch_us x (1 - 1/compute_slowdown). batch_us + compute_us is what
// a step that overlaps the call loses. rounds 0: the windows were too short to tell (slowdown 1).
// compute_halfwidth_us: compute_us's spread over the rounds (core/overlap_math.hpp:
// compute_halfwidth_us), added to the collective's half-width wherever tune decides.
struct PointOverlap {
  int rounds = 0;
  double compute_slowdown = 1;
  double compute_us = 0;
  double compute_halfwidth_us = 0;
  bool operator==(const PointOverlap&) const = default;
};

struct PointResult {
  Collective collective = Collective::AllReduce;
  DType dtype = DType::Float32;
  ReduceOp op = ReduceOp::Sum;
  bool in_place = false;
  std::optional<int> root;       // broadcast, reduce, gather, scatter only
  std::uint64_t size_bytes = 0;  // max(send, recv) per rank, as nccl-tests' size column
  std::uint64_t count = 0;       // elements passed to the call
  PointConfig config;
  // NCCL's alltoall, gather and scatter only: which implementation ran (native call or grouped
  // send/recv); part of the point's identity, so the two are never one series. nullopt: other
  // collectives, the MPI backend, and results written before the field existed (grouped).
  std::optional<P2pImpl> impl;
  PointStatus status = PointStatus::Ok;
  std::string reason;            // for skipped / failed points

  double batch_us = 0;           // host time of back-to-back ops / n, averaged over ranks
  Summary iter_us;               // per-iteration times, max over ranks per iteration
  double algbw_GBps = 0;         // from batch_us
  double busbw_GBps = 0;         // from batch_us
  long wrong = -1;               // wrong elements summed over ranks; -1: not checked
  long iterations = 0;
  std::optional<StopReason> stop_reason;  // ok points: why measuring ended
  double rel_noise = 0;          // median's relative CI half-width at stop
  std::optional<Algorithm> chosen_algo;  // what the backend actually ran (NCCL: observed by the
  std::optional<Protocol> chosen_proto;  // plugin); nullopt: not observed
  int chosen_channels = 0;
  AlgorithmOffer offered_algos;  // what NCCL's cost table offered for this call
  // Successive halving's short screening measurements (runs[].screened) carry their round
  // (0, 1, ...); -1 for a full measurement.
  int screen_round = -1;
  RankTimings ranks;  // ok points of cctune.results/2; empty otherwise
  std::optional<PointOverlap> overlap;  // ok points of an `--overlap` sweep only
};

// One config group: a set of process-level settings measured on one communicator.
struct RunResult {
  std::string backend;   // "mpi" | "nccl"
  std::string group;     // label, e.g. "default", "pcie"
  // The group's own settings plus the sweep's own plugin variable (NCCL_TUNER_PLUGIN).
  std::map<std::string, std::string> env;
  // NCCL backend: every NCCL setting the workers ran with (the caller's, the group's, the
  // sweep's; core/nccl_settings.hpp), on rank 0's host. Empty in results of cctune before it was recorded.
  std::map<std::string, std::string> nccl_env;
  // NCCL backend: per collective, the algorithms NCCL's cost table offered (an entry >= 0
  // for some protocol) on the run's communicator, as the tuner plugin saw them.
  std::map<Collective, AlgorithmOffer> nccl_offered;
  int nranks = 0;
  int nnodes = 0;
  // Indexed by rank (the communicator's rank: points[].ranks columns use the same index);
  // empty in cctune.results/1 files.
  std::vector<RankPlace> places;
  RunStatus status = RunStatus::Ok;
  std::string reason;
  std::vector<PointResult> points;
  // Halving strategy only: the brief measurements that decided which candidates earned a
  // full one. Tune, compare and report read `points` alone.
  std::vector<PointResult> screened;
  double duration_s = 0;  // NCCL backend: the group's wall time, start-up included (0: unknown)
  double startup_s = 0;   // ...of which until its first point (spawn, NCCL init, first warm-up)
  // Empty for a measurement; "shared-gpu" for the test mode, whose times are not performance.
  std::string test_mode;
  int test_shared_gpu = 0;  // its K: workers each supervisor ran per GPU it owned
  // A racing sweep's round (core/race_rounds.hpp): 0 for the first measurement of a group, k for
  // its k-th rerun; after folding, the last round the group was measured in.
  int race_round = 0;
};

struct Meta {
  std::string schema = results_schema;
  std::vector<std::string> argv;
  std::string cctune_version;
  std::string git_sha;
  std::map<std::string, std::string> versions;  // mpi, nccl, cuda_runtime, cuda_driver, ...
  std::vector<std::string> hostnames;
  std::string start_time;  // ISO 8601 UTC
  std::string end_time;
  MetaStatus status = MetaStatus::Running;
  std::map<std::string, std::string> env;  // NCCL_*, OMPI_*/PMIX/SLURM that shape the run
  // The resolved plan with what the drivers record beside it (core/result_section.hpp); each
  // part is read through its owner: runtime::plan_of (the plan), app::space_name_of,
  // app::recorded_workload_of, app::resume_history_of, and test_mode_of below.
  ResultSection settings = ResultSection(nlohmann::json::object());
};

struct Results {
  Meta meta;
  std::vector<RunResult> runs;
  // Sections other modules own (core/result_section.hpp): read them through topo::topology_of
  // and net::probe_result_of.
  ResultSection topology;  // absent until a topology is attached
  ResultSection net;       // absent unless a network probe ran
};

// The test mode a results file was measured in ("shared-gpu"), from meta.settings or any
// run; empty for a performance run. A meta.settings that is not an object, or a test_mode
// that is not a string, is a UsageError of one line naming it (core/test_mode.cpp).
std::string test_mode_of(const Results& r);
// Puts a plan's test mode (empty: none) in place as the settings' value test_mode_of reads,
// for settings written in this process (ResultSection::seed).
void seed_test_mode(ResultSection& settings, std::string mode);

}  // namespace cctune
