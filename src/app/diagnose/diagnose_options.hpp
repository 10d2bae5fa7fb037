#pragma once
// The options of `cctune diagnose`, as typed and as resolved into the sweep plan its stages run.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "app/cli/sweep_options.hpp"
#include "diagnose/pair_selection.hpp"
#include "net/probe_options.hpp"

namespace cctune::app::diagnose {

struct DiagnoseArgs {
  std::string backend = "auto";
  std::string pairs = "auto";
  std::string baseline;
  bool dry_run = false;
  int nodes = 0;  // --dry-run: plan for this many nodes (0: this job's)
  int gpus = 0;   // GPUs per node: the dry run's, and the NCCL backend's --gpus (0: all)
  std::string latency_size = "8";
  std::string bandwidth_size;  // empty: 64M with NCCL, 4M with MPI
  double max_time_s = 1.0;
  std::string output_dir = "cctune-diagnose";
  bool force = false;  // --force: replace an earlier run's results in output_dir
  std::string probe = "auto";  // auto | ib | tcp | none
  std::string socket_ifname;
  std::string probe_bytes = "1M";
  long probe_iters = 100;
  int test_shared_gpu = 0;
  std::string prometheus;  // --prometheus FILE (empty: none)
};

void add_diagnose_options(CLI::App& cmd, DiagnoseArgs& args);

// The stages' sweep: AllReduce, out-of-place, at the latency and bandwidth sizes. Throws
// UsageError naming the option.
SweepPlan resolve_diagnose_plan(const DiagnoseArgs& args, bool nccl_usable, bool gpus_present);

// The pair probe's options; nullopt for --probe none.
std::optional<net::ProbeOptions> resolve_probe(const DiagnoseArgs& args);

}  // namespace cctune::app::diagnose
