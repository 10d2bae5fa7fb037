#pragma once
// What `cctune diagnose` will run, and about how long it takes, from the cluster's shape
// alone: the plan `--dry-run` prints. Every stage runs in a bounded number of rounds in
// which all nodes (or all pairs of a round) work at once.
#include <string>
#include <vector>

#include "diagnose/pair_selection.hpp"

namespace cctune::diagnose {

struct PlanInputs {
  int nodes = 1;
  int gpus_per_node = 1;
  PairSelection pairs;
  std::string backend = "NCCL";  // who runs the collectives: "NCCL" or "MPI"
  int sizes = 2;               // a latency size and a bandwidth size
  int collectives = 1;         // AllReduce
  double point_s = 1.0;        // time cap per measured point (--max-time)
  double probe_pair_s = 2.0;   // one pair probe (bandwidth and latency)
  double comm_setup_s = 5.0;   // NCCL communicators of one round set up and torn down
};

struct StagePlan {
  std::string name;
  std::string what;
  int rounds = 0;           // 0: skipped
  double estimate_s = 0;
  std::string skipped_why;  // set when skipped
};

struct DiagnosePlan {
  PlanInputs inputs;
  std::vector<net::Round> pair_rounds;
  std::vector<StagePlan> stages;
  double total_s = 0;
};

// Throws UsageError for fewer than one node or GPU, and for a pair selection the cluster cannot give.
DiagnosePlan plan_diagnosis(const PlanInputs& inputs);

// The plan as a table with a total, for --dry-run.
std::string format_plan(const DiagnosePlan& plan);

}  // namespace cctune::diagnose
