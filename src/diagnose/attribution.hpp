#pragma once
// Which component drags the cluster down: GPUs, a node's internal fabric, a node's NIC or
// link, or the path between two nodes, named from what the diagnose stages measured
// (docs/DIAGNOSE.md, "How suspects are named"). Pure: no MPI, NCCL or files, so synthetic
// clusters test it.
#include <string>
#include <vector>

#include "diagnose/outliers.hpp"

namespace cctune::diagnose {

// One GPU (rank) in the intra-node stage: its own per-operation time and how often it
// arrived last at a collective.
struct GpuFigure {
  std::string host;
  int gpu = 0;
  double time_us = 0;
  double last_fraction = 0;  // 0..1
  double baseline_us = 0;    // 0: no baseline
};

// One node's intra-node collective (its GPUs together), bandwidth-bound size.
struct NodeFigure {
  std::string host;
  double busbw_gbps = 0;
  double limit_gbps = 0;     // the topology's physical limit for the path; 0: unknown
  double baseline_gbps = 0;  // 0: no baseline
};

// One node pair of the network stage (probe or NCCL between the two nodes).
struct PairFigure {
  std::string host_a, host_b;
  double gbps = 0;
  double limit_gbps = 0;
  double baseline_gbps = 0;
};

struct Observations {
  std::vector<GpuFigure> gpus;
  std::vector<NodeFigure> nodes;
  std::vector<PairFigure> pairs;
};

struct Rules {
  OutlierRule outlier;
  double limit_fraction = 0.5;  // below this share of the physical limit: said as evidence
  double baseline_drop = 0.15;  // this much below the component's own baseline: a suspect
};

enum class SuspectKind { Gpu, Node, Nic, Pair };
const char* to_string(SuspectKind kind);

struct Suspect {
  SuspectKind kind = SuspectKind::Gpu;
  std::string host;
  int gpu = -1;      // Gpu only
  std::string peer;  // Pair only: the other host
  std::string nic;   // Nic only: the interface or RDMA port its pair probes used there ("eth0", "mlx5_0:1"); empty: unknown
  double figure = 0, median = 0, limit = 0, baseline = 0;
  std::string unit;                   // "us" or "GB/s"
  std::vector<std::string> evidence;  // one sentence each
};

struct Diagnosis {
  std::vector<Suspect> suspects;
  std::vector<std::string> notes;  // what could not be judged, and cluster-wide findings
};

Diagnosis attribute(const Observations& obs, const Rules& rules = {});

// Confirmation on a loaded host: a healthy pair can read slow once (another process's CPU
// burst during its measurement: -22 % against the pairs' median once in CI), so the pairs the
// network judgement would blame are measured once more and judged by the better of their two
// readings (better_reading). Returns the indices into `pairs` of those pairs: each one named as
// a slow pair, and every pair of a node named as a slow NIC/link.
std::vector<std::size_t> pairs_to_confirm(const std::vector<PairFigure>& pairs, const Rules& rules = {});

}  // namespace cctune::diagnose
