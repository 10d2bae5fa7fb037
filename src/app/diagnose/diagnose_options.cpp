#include "app/diagnose/diagnose_options.hpp"

#include "core/error.hpp"
#include "core/units.hpp"

namespace cctune::app::diagnose {

void add_diagnose_options(CLI::App& cmd, DiagnoseArgs& a) {
  cmd.add_option("--backend", a.backend, "mpi, nccl or auto (nccl when GPUs and NCCL are there)")->capture_default_str();
  cmd.add_option("--pairs", a.pairs, "node pairs of the network stages: auto, all, ring or random:K")->capture_default_str();
  cmd.add_option("--baseline", a.baseline, "diagnosis.json of a known-good run of this cluster: 'below its own baseline' is evidence");
  cmd.add_flag("--dry-run", a.dry_run, "print the stages, rounds and an estimate; measure nothing");
  cmd.add_option("--nodes", a.nodes, "--dry-run: plan for N nodes (default: this job's)");
  cmd.add_option("--gpus", a.gpus, "GPUs per node: the dry run's plan; nccl: GPUs to use with one rank per node (0: all)");
  cmd.add_option("--latency-size", a.latency_size, "the latency-bound size")->capture_default_str();
  cmd.add_option("--bandwidth-size", a.bandwidth_size, "the bandwidth-bound size (default 64M with nccl, 4M with mpi)");
  cmd.add_option("--max-time", a.max_time_s, "time cap per measured point in seconds")->capture_default_str();
  cmd.add_option("-o,--output", a.output_dir, "directory for diagnosis.json, the stages' results and report.html")->capture_default_str();
  cmd.add_flag("--force", a.force, "replace an earlier run's results in the -o directory (without it, diagnose refuses to start)");
  cmd.add_option("--probe", a.probe, "pair probe transport: auto (ibverbs when every node has RDMA, else TCP), ib, tcp, none")
      ->capture_default_str();
  cmd.add_option("--socket-ifname", a.socket_ifname, "TCP probe interface, NCCL_SOCKET_IFNAME syntax; default as NCCL");
  cmd.add_option("--probe-bytes", a.probe_bytes, "pair probe bandwidth message size")->capture_default_str();
  cmd.add_option("--probe-iters", a.probe_iters, "pair probe bandwidth messages (and latency round trips)")->capture_default_str();
  cmd.add_option("--prometheus", a.prometheus, "also write the suspects and figures to FILE (*.prom) for node_exporter's textfile collector");
  cmd.add_option("--test-shared-gpu", a.test_shared_gpu,
                 "nccl, functional tests only: every rank is an emulated node with K workers on a shared GPU (own NCCL_HOSTID)");
}

SweepPlan resolve_diagnose_plan(const DiagnoseArgs& a, bool nccl_usable, bool gpus_present) {
  SweepArgs s;  // the flags diagnose shares with sweep; the rest is its own fixed plan
  s.backend = a.backend;
  s.max_time_s = a.max_time_s;
  s.output_dir = a.output_dir;
  s.gpus = a.gpus;
  s.test_shared_gpu = a.test_shared_gpu;
  const std::uint64_t lat = parse_size(a.latency_size, "--latency-size");
  const bool nccl = a.backend == "nccl" || (a.backend == "auto" && nccl_usable && gpus_present);
  const std::string bw_text = a.bandwidth_size.empty() ? (nccl ? "64M" : "4M") : a.bandwidth_size;
  const std::uint64_t bw = parse_size(bw_text, "--bandwidth-size");
  if (bw <= lat)
    throw UsageError("--bandwidth-size " + format_size(bw) + " is not above --latency-size " + format_size(lat),
                     "give a bandwidth size above the latency size, e.g. --latency-size 8 --bandwidth-size 64M");
  PlanOverrides o;
  o.collectives = std::vector<Collective>{Collective::AllReduce};
  o.placements = std::vector<bool>{false};
  o.sizes = SizeSequence{};
  o.sizes->list = {lat, bw};
  return resolve_sweep(s, nccl_usable, gpus_present, o);
}

std::optional<net::ProbeOptions> resolve_probe(const DiagnoseArgs& a) {
  const net::ProbeKind kind = net::parse_probe_kind(a.probe);
  if (kind == net::ProbeKind::none) return std::nullopt;
  net::ProbeOptions o;
  o.kind = kind;
  o.socket_ifname = a.socket_ifname;
  o.min_bytes = o.max_bytes = parse_size(a.probe_bytes, "--probe-bytes");
  if (a.probe_iters < 1) throw UsageError("--probe-iters must be at least 1", "use e.g. --probe-iters 100");
  o.iterations = a.probe_iters;
  o.latency_iterations = a.probe_iters;
  o.warmup_iterations = std::min<long>(a.probe_iters, 10);
  net::validate(o);
  return o;
}

}  // namespace cctune::app::diagnose
