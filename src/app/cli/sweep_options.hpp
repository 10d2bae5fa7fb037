#pragma once
// The options of `cctune sweep`, as typed (strings) and as resolved (values).
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "app/cli/plan_overrides.hpp"
#include "runtime/sweep_plan.hpp"

namespace cctune::workload {
struct WorkloadPlan;
}

namespace cctune::app {

// The plan type lives in the runtime, which both the app and the workers use.
using runtime::BackendChoice;
using runtime::NcclSettings;
using runtime::SweepPlan;

struct SweepArgs {  // what the user typed
  std::string min_bytes = "8";
  std::string max_bytes;  // empty: the backend's default
  double factor = 2.0;
  std::string step_bytes = "0";
  std::string sizes;  // comma-separated explicit list
  bool sizes_given = false;  // --sizes was typed (an empty list is then an error, not the default)
  int iters = 20;
  int warmup = 5;
  int check = 0;
  std::string collectives = "allreduce,allgather,reducescatter";
  std::string dtype = "float32";
  std::string op = "sum";
  std::string root = "0";                // rooted collectives: a rank, or "all"
  std::string backend = "auto";
  std::string placement = "both";  // both | out | in
  std::string output_dir = "cctune-out";
  double max_time_s = 1.0;
  double target_noise = 0.01;
  int min_iters = 20;
  // NCCL backend (docs/RUNTIME.md)
  int gpus = 0;                          // 0: all GPUs of the node (one rank per node)
  std::string transport = "nvlink";      // comma-separated presets, one config group each
  std::vector<std::string> env_groups;   // LABEL:KEY=VALUE,... extra config groups
  int emulate_nodes = 1;
  double point_timeout_s = 60;
  double group_timeout_s = 0;            // 0: automatic from the number of points
  bool graph = false;
  // `sweep --overlap [on|off]`: a compute load beside every batch. Off unless asked: see
  // docs/TUNING.md "Collectives beside compute" for why it is not a workload sweep's default yet.
  std::string overlap = "off";
  std::string p2p_impl = "native";  // --p2p-impl
  int test_shared_gpu = 0;               // K workers per GPU, each its own NCCL host (0: off)
  std::string configs = "auto";         // in-process configs: auto,ring/simple/16,...
  // Tuning (docs/TUNING.md): a search space decides the dimensions; flags typed override.
  std::string space;                     // name (configs/spaces/NAME.json) or path
  std::string strategy;                  // exhaustive | halving; empty: the space's, else exhaustive
  bool dry_run = false;                  // print the plan and exit
};

// The options by concern. A command registers only the concerns it uses, so CLI11 itself
// refuses a flag the command does not take (one place to add a flag, no list of refusals).
// How points are measured and where the results go: -n, -w, -o, --backend, --max-time, --target-noise, --min-iters.
void add_measurement_options(CLI::App& cmd, SweepArgs& args);
// Which points, their shapes: -b, -e, -f, -i, --sizes, --collectives, -d. Returned, because a
// workload's shapes replace them: --workload excludes each (the parser refuses the pair).
std::vector<CLI::Option*> add_shape_options(CLI::App& cmd, SweepArgs& args);
// Which variants of each shape: -c, --root, --op, --placement, --p2p-impl.
void add_variant_options(CLI::App& cmd, SweepArgs& args);
// Where the NCCL workers run: --gpus, --emulate-nodes, --point-timeout, --group-timeout, --graph, --test-shared-gpu.
void add_placement_options(CLI::App& cmd, SweepArgs& args);
// Which NCCL configurations are swept: --transport, --env-group, --configs (the A/B commands
// measure exactly two: NCCL's defaults and a profile).
void add_config_options(CLI::App& cmd, SweepArgs& args);
// `cctune sweep`: all of them; returns the shape options.
std::vector<CLI::Option*> add_sweep_options(CLI::App& cmd, SweepArgs& args);
// The measurement options of a command that measures NCCL's defaults against a profile (verify,
// replay), with that family's defaults set first, so that the help shows them: the NCCL
// backend, out-of-place, and `output_dir` unless -o is given. Call before the other adders.
void add_ab_measurement_options(CLI::App& cmd, SweepArgs& args, const std::string& output_dir);
// --space, --strategy, --dry-run: `cctune sweep` only.
void add_space_options(CLI::App& cmd, SweepArgs& args);
// Validates and resolves; throws UsageError naming the flag and the fix. A field set in
// `overrides` (a space's, verify's, diagnose's) takes the place of its flags' text; the plan is
// then checked once (runtime::check_plan).
SweepPlan resolve_sweep(const SweepArgs& args, bool nccl_built, bool gpus_present, const PlanOverrides& overrides = {});
// The run settings alone (backend, measurement, NCCL settings and --p2p-impl): for a command
// whose point space comes from elsewhere (`cctune replay`: the captured step), which sets
// plan.space and then calls runtime::check_plan. The grid flags are not read.
SweepPlan resolve_settings(const SweepArgs& args, bool nccl_built, bool gpus_present, const PlanOverrides& overrides = {});
// "auto,ring/simple/16,tree/ll": NCCL's own choice, or algo/proto[/channels] forced through
// the tuner plugin. Throws UsageError naming the bad entry.
std::vector<PointConfig> parse_point_configs(const std::string& text, bool graph);

// --overlap's value: true for "on" (or the flag alone), false for "off"; anything else is a UsageError.
bool parse_overlap(const std::string& text);

}  // namespace cctune::app
