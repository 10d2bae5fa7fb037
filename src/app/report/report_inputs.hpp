#pragma once
// Defensive readers of the loosely specified parts of a results file (topology, net):
// they accept what the topology and net modules write today and tolerate anything else.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/results.hpp"

namespace cctune::app::report {

// The physical limit that bounds a run's busbw, from the topology's derived link speeds.
struct Limit {
  double GBps = 0;
  std::string what;  // "NVLink per GPU", "GPU PCIe", "NIC port"
};
std::optional<Limit> physical_limit(const nlohmann::json& topology, const RunResult& run);

// One measured direction of the network probe.
struct NetPair {
  int src = 0;
  int dst = 0;
  double GBps = 0;
  std::string transport;  // "ib", "tcp", ... when the file says
};
// Finds the pair list in results.net (an array, or an object holding one) and reads each
// entry's ranks and bandwidth; entries it cannot read are skipped and counted.
struct NetPairs {
  std::vector<NetPair> pairs;
  int unreadable = 0;
  std::string transport;
};
NetPairs read_net_pairs(const nlohmann::json& net);

// Generic HTML view of any JSON value: objects as key/value tables, arrays of objects as
// tables, matrices as grids; depth- and size-limited, every string escaped.
std::string json_to_html(const nlohmann::json& value, int depth = 0);

// One line per node: "host: 8 x NVIDIA H200, 8 NICs (mlx5_0 400 Gb/s InfiniBand ACTIVE, ...)".
std::vector<std::string> topology_summary(const nlohmann::json& topology);

}  // namespace cctune::app::report
