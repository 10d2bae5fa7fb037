#include "app/cli/sweep_options.hpp"

#include <algorithm>
#include <optional>
#include <sstream>

#include "app/cli/type_options.hpp"
#include "core/algo_proto.hpp"
#include "core/error.hpp"
#include "core/sizes.hpp"
#include "core/units.hpp"
#include "runtime/plan_check.hpp"

namespace cctune::app {

void add_measurement_options(CLI::App& cmd, SweepArgs& a) {
  cmd.add_option("-n,--iters", a.iters, "operations per timed batch (MPI: wall batches grow from it to >= 1 ms)")->capture_default_str();
  cmd.add_option("-w,--warmup-iters", a.warmup, "warm-up operations per point")->capture_default_str();
  cmd.add_option("-o,--output", a.output_dir, "output directory for results.json")->capture_default_str();
  cmd.add_option("--backend", a.backend, "mpi, nccl or auto (nccl when GPUs and NCCL are there)")->capture_default_str();
  cmd.add_option("--max-time", a.max_time_s, "time cap per point in seconds")->capture_default_str();
  cmd.add_option("--target-noise", a.target_noise, "stop when the median's relative noise is below this")->capture_default_str();
  cmd.add_option("--min-iters", a.min_iters, "fewest timed operations per point")->capture_default_str();
}

std::vector<CLI::Option*> add_shape_options(CLI::App& cmd, SweepArgs& a) {
  return {
      cmd.add_option("-b,--min-bytes", a.min_bytes, "smallest size (8, 64K, 1M, 512KiB)")->capture_default_str(),
      cmd.add_option("-e,--max-bytes", a.max_bytes, "largest size (default 64M for mpi, 1G for nccl)"),
      cmd.add_option("-f,--step-factor", a.factor, "multiply the size by this factor")->capture_default_str(),
      cmd.add_option("-i,--step-bytes", a.step_bytes, "add this many bytes instead of multiplying"),
      cmd.add_option("--sizes", a.sizes, "explicit comma-separated sizes (overrides -b/-e/-f/-i)")->each([&a](const std::string&) {
        a.sizes_given = true;
      }),
      cmd.add_option("--collectives", a.collectives,
                     "comma-separated: allreduce, allgather, reducescatter, broadcast, reduce, alltoall, sendrecv, gather, "
                     "scatter, or all")
          ->capture_default_str(),
      cmd.add_option("-d,--dtype", a.dtype,
                     "data types, comma-separated, or all: float32, float64, int32, float16, bfloat16, float8e4m3, ... (one table each)")
          ->capture_default_str()};
}

void add_variant_options(CLI::App& cmd, SweepArgs& a) {
  cmd.add_option("-c,--check", a.check, "check results: 1 on, 0 off")->capture_default_str();
  cmd.add_option("--root", a.root, "broadcast, reduce, gather, scatter: root rank, or all (each rank in turn)")->capture_default_str();
  cmd.add_option("--op", a.op, "reduction ops, comma-separated, or all: sum, prod, max, min, avg (one table each)")->capture_default_str();
  cmd.add_option("--placement", a.placement, "both, out (out-of-place only) or in (in-place only)")->capture_default_str();
  cmd.add_option("--p2p-impl", a.p2p_impl,
                 "nccl: alltoall, gather, scatter as NCCL's native call where the loaded NCCL has it (native), "
                 "as grouped send/recv (grouped), or both as two variants")
      ->capture_default_str();
}

void add_placement_options(CLI::App& cmd, SweepArgs& a) {
  cmd.add_option("--gpus", a.gpus, "nccl: GPUs to use with one rank per node (0: all)")->capture_default_str();
  cmd.add_option("--emulate-nodes", a.emulate_nodes, "nccl: split each node's GPUs into K NCCL nodes (NCCL_HOSTID)")
      ->capture_default_str();
  cmd.add_option("--point-timeout", a.point_timeout_s, "nccl: fail a group whose worker is silent this many seconds")
      ->capture_default_str();
  cmd.add_option("--group-timeout", a.group_timeout_s, "nccl: deadline of one config group in seconds (0: automatic)")
      ->capture_default_str();
  cmd.add_flag("--graph", a.graph, "nccl: time CUDA-graph replays of the operations");
  cmd.add_option("--test-shared-gpu", a.test_shared_gpu,
                 "nccl, functional tests only: K workers per GPU, each its own NCCL host (NCCL_HOSTID); "
                 "allows more ranks than GPUs; results are marked and never tuned");
}

void add_config_options(CLI::App& cmd, SweepArgs& a) {
  cmd.add_option("--transport", a.transport, "nccl: nvlink, pcie, net, or a comma-separated list (one config group each)")
      ->capture_default_str();
  cmd.add_option("--env-group", a.env_groups, "nccl: extra config group LABEL:KEY=VALUE[,KEY=VALUE...] (repeatable)");
  cmd.add_option("--configs", a.configs,
                 "nccl: comma-separated in-process configs: auto (NCCL's choice) or algo/proto[/channels], "
                 "e.g. auto,ring/simple/32,tree/ll")
      ->capture_default_str();
}

std::vector<CLI::Option*> add_sweep_options(CLI::App& cmd, SweepArgs& a) {
  std::vector<CLI::Option*> shapes = add_shape_options(cmd, a);
  add_variant_options(cmd, a);
  add_measurement_options(cmd, a);
  add_placement_options(cmd, a);
  add_config_options(cmd, a);
  cmd.add_option("--overlap", a.overlap,
                 "nccl: a cuBLAS GEMM load on every GPU beside each point; tune decides by collective + compute. on (the flag alone) "
                 "or off (the default; docs/TUNING.md \"Collectives beside compute\")")
      ->expected(0, 1);
  return shapes;
}

void add_space_options(CLI::App& cmd, SweepArgs& a) {
  cmd.add_option("--space", a.space, "nccl: tune over a search space: quick, default, exhaustive, or a space file (docs/TUNING.md)");
  cmd.add_option("--strategy", a.strategy, "nccl: exhaustive (every config at every size) or halving (screen briefly, measure the best fully)");
  cmd.add_flag("--dry-run", a.dry_run, "with --space: print the groups, points and estimated duration, measure nothing");
}

void add_ab_measurement_options(CLI::App& cmd, SweepArgs& args, const std::string& output_dir) {
  args.output_dir = output_dir;
  args.placement = "out";
  args.backend = "nccl";
  add_measurement_options(cmd, args);
}

std::vector<PointConfig> parse_point_configs(const std::string& text, bool graph) {
  std::vector<PointConfig> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item.empty()) continue;
    PointConfig c;
    c.graph = graph;
    if (item != "auto") {
      std::vector<std::string> parts;
      std::stringstream fields(item);
      std::string f;
      while (std::getline(fields, f, '/')) parts.push_back(f);
      const auto algo = parts.size() >= 2 ? parse_algorithm(parts[0]) : std::nullopt;
      const auto proto = parts.size() >= 2 ? parse_protocol(parts[1]) : std::nullopt;
      int channels = 0;
      bool channels_ok = parts.size() == 2;
      if (parts.size() == 3) {
        try {
          std::size_t used = 0;
          channels = std::stoi(parts[2], &used);
          channels_ok = used == parts[2].size() && channels >= 0 && channels <= 64;  // 0: NCCL's count
        } catch (const std::exception&) {
          channels_ok = false;
        }
      }
      if (!algo || !proto || !channels_ok)
        throw UsageError("--configs entry '" + item + "' is not auto or algo/proto[/channels]",
                         "use e.g. auto,ring/simple/32,tree/ll (algos: " + algorithm_name_list() + "; protos: " +
                             protocol_name_list() + "; channels 0 (NCCL's) to 64)");
      c.algo = algo;
      c.proto = proto;
      c.channels = channels;
    }
    if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
  }
  if (out.empty()) throw UsageError("--configs is empty", "use auto, or e.g. auto,ring/simple/32");
  return out;
}

bool parse_overlap(const std::string& text) {
  if (text.empty() || text == "on") return true;
  if (text == "off") return false;
  throw UsageError("--overlap '" + text + "' is unknown", "use --overlap (on) or --overlap off");
}

namespace {
int resolve_test_shared_gpu(const SweepArgs& a) {
  const int k = a.test_shared_gpu;
  if (k == 0) return 0;
  if (k < 1 || k > 16) throw UsageError("--test-shared-gpu must be 1..16", "use e.g. --test-shared-gpu 2 (workers per GPU)");
  // Every worker is a host of its own already; grouping them into K nodes would put two
  // ranks of one GPU on one NCCL host, which NCCL refuses.
  if (a.emulate_nodes > 1)
    throw UsageError("--test-shared-gpu and --emulate-nodes cannot be combined: in the shared-GPU test mode every worker is its own NCCL node",
                     "drop --emulate-nodes (--test-shared-gpu 2 already runs 2 ranks as 2 nodes)");
  return k;
}

P2pImplChoice parse_p2p_impl_arg(const std::string& text) {
  const auto choice = parse_p2p_impl_choice(text);
  if (!choice) throw UsageError("--p2p-impl '" + text + "' is unknown", "use " + std::string(p2p_impl_choices));
  return *choice;
}

NcclSettings resolve_nccl(const SweepArgs& a, const PlanOverrides& over) {
  NcclSettings n;
  n.gpus = a.gpus;
  n.groups = runtime::transport_groups(a.transport);
  for (const auto& text : a.env_groups) {
    auto g = runtime::parse_env_group(text);
    for (const auto& other : n.groups)
      if (other.label == g.label) throw UsageError("config group '" + g.label + "' is named twice", "give each --env-group its own label");
    n.groups.push_back(std::move(g));
  }
  n.emulate_nodes = a.emulate_nodes;
  n.point_timeout_s = a.point_timeout_s;
  n.group_timeout_s = a.group_timeout_s;
  n.graph = a.graph;
  n.overlap = parse_overlap(a.overlap);
  n.test_shared_gpu = resolve_test_shared_gpu(a);
  n.configs = over.configs ? *over.configs : parse_point_configs(a.configs, a.graph);
  const std::optional<tuner::search::StrategyKind> strategy =
      over.strategy ? over.strategy
      : a.strategy.empty() ? tuner::search::StrategyKind::Exhaustive
                           : tuner::search::parse_strategy(a.strategy);
  if (!strategy) throw UsageError("--strategy '" + a.strategy + "' is unknown", std::string("use ") + tuner::search::strategy_names);
  n.strategy = *strategy;
  return n;
}
}  // namespace

namespace {
std::vector<std::uint64_t> parse_size_list(const std::string& text) {
  std::vector<std::uint64_t> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(parse_size(item, "--sizes entry"));
  if (out.empty()) throw UsageError("--sizes '" + text + "' lists no size", "give sizes such as --sizes 8,1K,1M, or drop --sizes");
  return out;
}

BackendChoice parse_backend(const std::string& s, bool nccl_built, bool gpus_present) {
  if (s == "mpi") return BackendChoice::Mpi;
  if (s == "nccl") {
    if (!nccl_built)
      throw EnvironmentError("--backend nccl: this cctune was built without the NCCL backend (CUDA or NCCL was not found at configure time)",
                             "install the CUDA toolkit and NCCL, then reconfigure (cmake -DCUDAToolkit_ROOT=... or NCCL_HOME=...) and rebuild; or use --backend mpi");
    return BackendChoice::Nccl;
  }
  if (s == "auto") return nccl_built && gpus_present ? BackendChoice::Nccl : BackendChoice::Mpi;
  throw UsageError("--backend '" + s + "' is unknown", "use mpi, nccl or auto");
}

// The rank count is not known here: a root beyond it is refused by check_root before measuring.
// nullopt: every rank in turn (`--root all`).
std::optional<int> parse_root(const std::string& s) {
  if (s == "all") return std::nullopt;
  std::size_t used = 0;
  int root = -1;
  try {
    root = std::stoi(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != s.size() || root < 0) throw UsageError("--root '" + s + "' is not a rank", "use a rank (0, 1, ...) or all");
  return root;
}
}  // namespace

namespace {
std::vector<std::uint64_t> resolve_sizes(const SweepArgs& a, BackendChoice backend) {
  SizeSequence seq;
  seq.min_bytes = parse_size(a.min_bytes, "--min-bytes");
  const std::string max = a.max_bytes.empty() ? (backend == BackendChoice::Nccl ? "1G" : "64M") : a.max_bytes;
  seq.max_bytes = parse_size(max, "--max-bytes");
  seq.factor = a.factor;
  seq.step_bytes = parse_size(a.step_bytes, "--step-bytes");
  if (a.sizes_given || !a.sizes.empty()) seq.list = parse_size_list(a.sizes);  // `--sizes ''` lists none: an error
  return seq.expand();
}

std::vector<bool> resolve_placements(const std::string& placement) {
  if (placement == "both") return {false, true};
  if (placement == "out") return {false};
  if (placement == "in") return {true};
  throw UsageError("--placement '" + placement + "' is unknown", "use both, out or in");
}
}  // namespace

SweepPlan resolve_settings(const SweepArgs& a, bool nccl_built, bool gpus_present, const PlanOverrides& over) {
  SweepPlan p;
  p.backend = parse_backend(a.backend, nccl_built, gpus_present);
  const P2pImplChoice impl = parse_p2p_impl_arg(a.p2p_impl);  // refused on either backend; MPI has one implementation of each
  // Batches and warm-ups are capped by time anyway; counts past this are typos, not plans.
  constexpr int max_ops = 1000000;
  if (a.iters > max_ops)
    throw UsageError("-n/--iters " + std::to_string(a.iters) + " is above the limit of " + std::to_string(max_ops), "use e.g. -n 20");
  if (a.warmup > max_ops)
    throw UsageError("-w/--warmup-iters " + std::to_string(a.warmup) + " is above the limit of " + std::to_string(max_ops),
                     "use e.g. -w 5");
  if (a.check != 0 && a.check != 1) throw UsageError("-c/--check must be 0 or 1", "use -c 1 to check results");
  p.measure.batch_iters = a.iters;
  p.measure.warmup_iters = over.warmup_iters.value_or(a.warmup);
  p.measure.check = a.check == 1;
  p.measure.stop.min_iterations = over.min_iters.value_or(a.min_iters);
  p.measure.stop.max_time_s = over.max_time_s.value_or(a.max_time_s);
  p.measure.stop.target_rel_noise = over.target_noise.value_or(a.target_noise);
  p.output_dir = a.output_dir;
  if (p.backend == BackendChoice::Nccl) {
    p.nccl = resolve_nccl(a, over);
    p.space.impls = impls_of(impl);
  } else if (a.test_shared_gpu != 0) {
    throw UsageError("--test-shared-gpu shares GPUs between NCCL workers and needs the NCCL backend", "use --backend nccl");
  } else if (parse_overlap(a.overlap)) {
    throw UsageError("--overlap runs a GPU compute load beside NCCL's collectives and needs the NCCL backend",
                     "use --backend nccl, or drop --overlap");
  }
  return p;
}

SweepPlan resolve_sweep(const SweepArgs& a, bool nccl_built, bool gpus_present, const PlanOverrides& over) {
  SweepPlan p = resolve_settings(a, nccl_built, gpus_present, over);
  // A workload's shapes are the points; their collectives and types are judged by the grid's
  // rule below (each type as if named), so a type the backend cannot run is refused alike.
  std::optional<PointSpace> shapes;
  if (over.shapes) shapes.emplace().points = *over.shapes;
  PointGrid grid;
  grid.collectives = shapes ? collectives_of(*shapes) : over.collectives ? *over.collectives : parse_collective_list(a.collectives);
  const BackendKind kind = p.backend == BackendChoice::Nccl ? BackendKind::Nccl : BackendKind::Mpi;
  const TypeChoice types = shapes        ? resolve_types(dtypes_of(*shapes), a.op, grid.collectives, kind)
                           : over.dtypes ? resolve_types(*over.dtypes, a.op, grid.collectives, kind)
                                         : resolve_types(a.dtype, a.op, grid.collectives, kind);
  grid.dtypes = types.dtypes;
  p.space.ops = types.ops;
  const std::optional<int> root = parse_root(a.root);
  p.space.all_roots = !root;
  p.space.root = root.value_or(0);
  if (!shapes) grid.sizes = over.sizes ? over.sizes->expand() : resolve_sizes(a, p.backend);
  p.space.placements = over.placements ? *over.placements : resolve_placements(a.placement);
  if (shapes)
    p.space.points = *over.shapes;
  else
    p.space.points = std::move(grid);
  runtime::check_plan(p);  // ranges, finite seconds, the point count: the same check a worker's plan gets
  return p;
}

}  // namespace cctune::app
