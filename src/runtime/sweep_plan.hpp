#pragma once
// What a sweep measures, resolved from the command line (and a search space): the one plan
// type of both backends, and its JSON. `cctune sweep` writes that JSON as meta.settings of
// results.json; an NCCL worker reads it from its spec (docs/RUNTIME.md). Lives in the runtime
// because the app (which builds plans) and the workers (which read them) both depend on it.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "collectives/engine.hpp"
#include "core/collective.hpp"
#include "core/collective_traits.hpp"
#include "core/job_point.hpp"
#include "core/point_space.hpp"
#include "core/results.hpp"
#include "runtime/groups.hpp"
#include "tuner/search/strategy.hpp"

namespace cctune::runtime {

enum class BackendChoice { Auto, Mpi, Nccl };

std::string to_string(BackendChoice b);

struct NcclSettings {  // the NCCL backend's process-level dimensions and watchdogs (its run settings)
  int gpus = 0;        // 0: all GPUs of the node (one rank per node)
  std::vector<ConfigGroup> groups;
  int emulate_nodes = 1;
  double point_timeout_s = 60;
  double group_timeout_s = 0;  // 0: automatic from the number of points
  bool graph = false;
  // `--overlap`: a compute load beside every timed batch; points then carry "overlap"
  // (docs/TUNING.md "Collectives beside compute").
  bool overlap = false;
  // The shared-GPU test mode (docs/NCCL_BACKEND.md): K workers per owned GPU, each its own NCCL
  // host; functional checks only, never performance. 0: off.
  int test_shared_gpu = 0;
  std::vector<PointConfig> configs;  // measured on one communicator, in this order
  tuner::search::StrategyKind strategy = tuner::search::StrategyKind::Exhaustive;  // over `configs`, per size
};

// The most calls one replayed step may hold, and the most repeats of one call.
inline constexpr std::size_t kMaxReplayCalls = 4096;
inline constexpr int kMaxReplayRepeats = 100000;

// The most job shapes one plan may carry.
inline constexpr std::size_t kMaxJobShapes = 4096;

// A sweep's run settings (what every point shares) and its point space (what it measures:
// a grid, a job's shapes or one replayed step; core/point_space.hpp), which alone enumerates,
// counts and estimates the points.
struct SweepPlan {
  BackendChoice backend = BackendChoice::Mpi;  // never Auto once resolved
  MeasureSettings measure;
  std::string output_dir;        // where results go; not part of the JSON
  NcclSettings nccl;
  // A worker's plan only: the planned skips of its own config group (the sweep's JSON counts
  // each group's skips as "skipped_configs"; the rules travel here, as "skips").
  std::vector<SkipRule> skips;
  // Never empty once resolved: a data type, an op and a placement at least. Its implementations
  // are the NCCL backend's --p2p-impl (none for MPI, which has one of each).
  PointSpace space;
};

// The plan's JSON: one object for the run settings and the point space together, as written
// before the two were split, so that earlier results still resume. "collectives",
// "sizes_bytes" and "dtype" list what the space measures (core/point_space.hpp's *_of).
// "dtype" and "op" are a string for one value (as before lists existed) and a list for
// several. "root" (a rank or "all") only when a rooted collective is planned; the "nccl"
// block is written for the NCCL backend only, "p2p_impl" in it only when not native,
// "test_mode" only in the shared-GPU test mode, "skips" only when there are some,
// "job_shapes" only for a workload's shapes, "replay_step" only for a replayed step.
nlohmann::json to_json(const SweepPlan& plan);
// The inverse (output_dir stays empty; a group's skip rules are not in its JSON); "dtype" and
// "op" may each be a string or a list. Throws
// UsageError naming the key for a missing or wrong field, a float beyond int, an empty or
// too long size list, a size of 0, a setting out of range or too many points. The text it
// comes from was depth-checked by whoever parsed it (a worker: parse_worker_spec).
SweepPlan plan_from_json(const nlohmann::json& j);

// The plan a results file records as its meta.settings (core/result_section.hpp), parsed once
// by plan_from_json; nullptr when the file records none (null settings). Settings that are no
// plan (an edited file, or one written before plans were recorded) are a UsageError of one
// line, "meta.settings is not a sweep's plan: " and the key plan_from_json names. The parts
// other modules write beside the plan have their own accessors (core/results.hpp says which).
const SweepPlan* plan_of(const Results& results);
// Puts `plan` in place as the value plan_of reads, for settings written in this process from
// to_json(plan): what the JSON leaves out (output_dir, a group's skips) is left out here too.
void seed_plan(ResultSection& settings, SweepPlan plan);

// --p2p-impl's choice as the space holds it (native when it names none).
P2pImplChoice p2p_impl_of(const PointSpace& space);

// Throws UsageError when the plan's root is not a rank of an `nranks`-rank job (and a rooted
// collective is planned): called once the rank count is known, before measuring.
void check_root(const SweepPlan& plan, int nranks);

}  // namespace cctune::runtime
