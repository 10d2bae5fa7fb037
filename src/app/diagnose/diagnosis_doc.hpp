#pragma once
// What `cctune diagnose` measured and concluded, as plain values: the figures of every GPU,
// node and node pair, the stages as they ran, and the suspects. diagnosis.json (schema
// cctune.diagnosis/1, docs/DIAGNOSE.md) is this document; a known-good one is a baseline.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/results.hpp"
#include "diagnose/attribution.hpp"

namespace cctune::app::diagnose {

inline constexpr const char* diagnosis_schema = "cctune.diagnosis/1";

struct GpuResult {
  std::string host;
  int gpu = 0;              // its index on the node (the NCCL worker's device, or the local rank)
  double time_us = 0;       // its own per-operation time in the intra-node stage
  double last_fraction = 0;  // how often it arrived last
};

// A rank the straggler rule (src/diagnose/straggler.hpp) named in a node's intra-node run.
struct StragglerResult {
  std::string host;
  int gpu = 0;
  int rank = 0;  // in the node's run
  double last_pct = 0;
  double others_wait_us = 0;
  double op_us = 0;
  int points_named = 0, points_measured = 0;
};

struct NodeResult {
  std::string host;
  int gpus = 0;
  double busbw_gbps = 0;  // intra-node stage, bandwidth size (0: not measured)
  double latency_us = 0;  // intra-node stage, latency size
  double limit_gbps = 0;  // the topology's physical limit (0: unknown)
};

struct PairResult {
  std::string host_a, host_b;
  double probe_gbps = 0;        // pair probe bandwidth, GB/s (0: not probed)
  double probe_limit_gbps = 0;  // the slower of the two ports' rates (0: unknown)
  double probe_latency_us = 0;
  std::string probe_error;
  std::string probe_nic_a, probe_nic_b;  // the interface (RDMA port) the probe used on host_a, host_b
  double busbw_gbps = 0;  // the collective between the two nodes, bandwidth size
  double busbw_limit_gbps = 0;  // its path's physical limit (the NIC port), 0: unknown
  double latency_us = 0;  // ... latency size
};

struct StageRecord {
  std::string name;
  int rounds = 0;  // 0: skipped
  double duration_s = 0;
  std::string skipped_why;
};

struct DiagnosisDoc {
  std::string backend;  // "mpi" | "nccl"
  std::string test_mode;  // "shared-gpu" in the shared-GPU test mode: functional only
  std::vector<std::string> hosts;  // the nodes
  int gpus_per_node = 0;           // the most any node has
  std::uint64_t latency_bytes = 0, bandwidth_bytes = 0;
  std::string pairs;  // the pair selection
  std::vector<StageRecord> stages;
  std::vector<GpuResult> gpus;
  std::vector<StragglerResult> stragglers;
  std::vector<NodeResult> nodes;
  std::vector<PairResult> pairs_measured;
  double all_busbw_gbps = 0, all_latency_us = 0;  // all-node stage (0: not run)
  std::string baseline_path;                      // empty: no baseline
  bool interrupted = false;  // a signal stopped the job: later stages did not run
  cctune::diagnose::Diagnosis diagnosis;
};

// The document's figures judged by the outlier rule and the attribution (src/diagnose) and its
// stragglers named as GPU suspects,
// with `baseline`'s figures as each component's own baseline when given. The probe's pairs
// and the collective's pairs are judged apart (different units of work) and their suspects
// merged, each piece of evidence saying which stage it comes from. A path the probe cleared
// is not named from the collective's outlier alone (a note instead).
cctune::diagnose::Diagnosis judge(const DiagnosisDoc& doc, const DiagnosisDoc* baseline,
                                  const cctune::diagnose::Rules& rules = {});

// The one-line verdict: "no suspects" or "N suspect(s): ...".
std::string verdict(const DiagnosisDoc& doc);
// "NIC/link eth0 of node2", or "NIC/link of node2" where the NIC is not known.
std::string nic_title(const cctune::diagnose::Suspect& s);

nlohmann::json to_json(const DiagnosisDoc& doc);
// Throws UsageError naming `source` when it is not a cctune.diagnosis/1 document.
DiagnosisDoc parse_diagnosis(const nlohmann::json& j, const std::string& source);
DiagnosisDoc load_diagnosis(const std::string& path);

// Throws UsageError (one line) when `baseline` was measured on another cluster shape: node
// count, GPUs per node, host names, backend or sizes.
void check_same_cluster(const DiagnosisDoc& baseline, const DiagnosisDoc& now);

// The table of figures, the suspects with their evidence, the notes and the verdict.
std::string format_diagnosis(const DiagnosisDoc& doc);
// The same as a section of report.html (id "diagnosis").
std::string diagnosis_html(const DiagnosisDoc& doc);

}  // namespace cctune::app::diagnose
