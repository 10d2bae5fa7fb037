#pragma once
// Readers of the sections of a results file that other modules write, typed through their
// owners' accessors: topology (topo::topology_of) for the physical limits, net
// (net::probe_result_of) for the pairs. The HTML's summaries and "all fields" views show the
// sections as written, so they show what they can of any file.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/results.hpp"

namespace cctune::app::report {

// The physical limit that bounds a run's busbw, from the link speeds the topology's writer
// derived (topo::NodeDerived). None without a topology, and with one that is not
// cctune.topology/1: the report still draws the run, without a limit line.
struct Limit {
  double GBps = 0;
  std::string what;  // "NVLink per GPU", "GPU PCIe", "NIC port"
};
std::optional<Limit> physical_limit(const Results& results, const RunResult& run);

// One measured pair of the network probe: the initiator wrote to the responder; the
// bandwidth is the probe's average at its largest size.
struct NetPair {
  int src = 0;  // initiator
  int dst = 0;  // responder
  double GBps = 0;
  std::string transport;  // "ib" | "tcp"
};
// results.net read through the probe's own typed accessor (net::probe_result_of). A section that
// does not follow it gives no pairs and `error`, the reader's one line naming the field.
struct NetPairs {
  std::vector<NetPair> pairs;
  int failed = 0;       // pairs that failed or measured no bandwidth
  int nranks = 0;
  std::string transport;
  std::string skipped_reason;  // the probe was skipped (--probe none)
  std::string error;           // the section is not a probe's net section
};
NetPairs read_net_pairs(const Results& results);

// Generic HTML view of any JSON value: objects as key/value tables, arrays of objects as
// tables, matrices as grids; depth- and size-limited, every string escaped.
std::string json_to_html(const nlohmann::json& value, int depth = 0);

// One line per node: "host: 8 x NVIDIA H200, 8 NICs (mlx5_0 400 Gb/s InfiniBand ACTIVE, ...)".
std::vector<std::string> topology_summary(const nlohmann::json& topology);

}  // namespace cctune::app::report
